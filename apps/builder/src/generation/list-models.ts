import type { Model } from "replicate";
import type { GenerationContext } from "./generation-context.ts";
import type { TtlCache } from "./ttl-cache.ts";

export interface ModelSummary {
  id: string;
  owner: string;
  name: string;
  description: string;
  kind: "image" | "video";
  run_count: number | null;
  cover_image_url: string | null;
}

export interface ModelList {
  data: ModelSummary[];
  source: "replicate" | "curated";
}

const COLLECTIONS = { image: "text-to-image", video: "text-to-video" } as const;

const curated = (kind: "image" | "video", id: string, description: string): ModelSummary => {
  const [owner = "", name = ""] = id.split("/");
  return { id, owner, name, description, kind, run_count: null, cover_image_url: null };
};

/** Offered when Replicate is not configured or unreachable, so the studio always has choices. */
export const CURATED_MODELS: ModelSummary[] = [
  curated("image", "black-forest-labs/flux-schnell", "FLUX.1 [schnell]: fast text-to-image"),
  curated("image", "black-forest-labs/flux-dev", "FLUX.1 [dev]: high-quality text-to-image"),
  curated("image", "black-forest-labs/flux-1.1-pro", "FLUX1.1 [pro]: Black Forest Labs' flagship"),
  curated("image", "stability-ai/stable-diffusion-3.5-large", "Stable Diffusion 3.5 Large"),
  curated("image", "ideogram-ai/ideogram-v2", "Ideogram v2: strong at text in images"),
  curated("image", "recraft-ai/recraft-v3", "Recraft V3: images in many styles"),
  curated("video", "minimax/video-01", "Hailuo video-01: text and image to video"),
  curated("video", "luma/ray", "Luma Ray (Dream Machine)"),
  curated("video", "tencent/hunyuan-video", "HunyuanVideo: open text-to-video"),
  curated("video", "kwaivgi/kling-v1.6-standard", "Kling 1.6 standard: text and image to video"),
];

/**
 * Models for the studio: with a query, Replicate's search; otherwise its text-to-image or
 * text-to-video collection, asked with the workspace's token (its own credential, else the server's).
 * Answers are cached for `cacheTtlMs` per token: a search with a workspace's token can include its
 * account's private models, which no other workspace may see. Without Replicate (no token, offline,
 * an error) the curated list answers, filtered by the query.
 *
 * @example const { data } = await listModels(context, cache, "ws_1", { kind: "image", query: "flux" });
 */
export async function listModels(
  context: Pick<GenerationContext, "replicate" | "logger">,
  cache: TtlCache<ModelList>,
  workspaceId: string,
  request: { kind: "image" | "video"; query?: string | undefined },
): Promise<ModelList> {
  const query = request.query?.trim().toLowerCase() ?? "";
  const replicate = await context.replicate.findForWorkspace(workspaceId);
  if (!replicate) return curatedList(request.kind, query);
  const key = `${replicate.tokenKey}|${request.kind}:${query}`;
  const cached = cache.get(key);
  if (cached) return cached;
  try {
    const { client } = replicate;
    const models = query
      ? (await client.models.search(query)).results
      : ((await client.collections.get(COLLECTIONS[request.kind])).models ?? []);
    const list: ModelList = {
      data: models.map((model) => toSummary(model, request.kind)),
      source: "replicate",
    };
    cache.set(key, list);
    return list;
  } catch (error) {
    context.logger.warn({ err: error }, "Replicate models unavailable; answering the curated list");
    return curatedList(request.kind, query);
  }
}

function curatedList(kind: "image" | "video", query: string): ModelList {
  return {
    data: CURATED_MODELS.filter(
      (model) =>
        model.kind === kind && (!query || `${model.id} ${model.description}`.toLowerCase().includes(query)),
    ),
    source: "curated",
  };
}

function toSummary(model: Model, kind: "image" | "video"): ModelSummary {
  return {
    id: `${model.owner}/${model.name}`,
    owner: model.owner,
    name: model.name,
    description: model.description ?? "",
    kind,
    run_count: typeof model.run_count === "number" ? model.run_count : null,
    cover_image_url: model.cover_image_url ?? null,
  };
}
