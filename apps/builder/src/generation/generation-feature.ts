import type { Deps } from "../deps.ts";
import { fileRoutes, publicFileRoutes } from "../files/routes.ts";
import { outboundFetch } from "../outbound/outbound-fetch.ts";
import { builderStorage } from "../storage/open-storage.ts";
import type { GenerationCapability } from "../workflows/capabilities.ts";
import { generateAndWait } from "./generate-and-wait.ts";
import {
  DEFAULT_GENERATION_SETTINGS,
  type GenerationContext,
  type InputSchema,
} from "./generation-context.ts";
import { toGenerationJson } from "./generation-json.ts";
import { createGenerationWorker, type GenerationWorker } from "./generation-worker.ts";
import type { ModelList } from "./list-models.ts";
import { replicateAccess } from "./replicate-access.ts";
import { generationRoutes, replicateRoutes } from "./routes.ts";
import { TtlCache } from "./ttl-cache.ts";

/**
 * Generation as the app mounts it: `/api/replicate` (generate, models, webhook),
 * `/api/generations`, `/api/files`, the polling worker `start()` runs, and the capability workflow
 * tools generate with — sharing the Replicate clients (one per token), one storage and one set of caches.
 *
 * @example const generation = createGenerationFeature(deps); app.route("/api/replicate", generation.replicateRoutes); await generation.worker.start();
 */
export function createGenerationFeature(deps: Deps): {
  replicateRoutes: ReturnType<typeof replicateRoutes>;
  generationRoutes: ReturnType<typeof generationRoutes>;
  fileRoutes: ReturnType<typeof fileRoutes>;
  publicFileRoutes: ReturnType<typeof publicFileRoutes>;
  worker: GenerationWorker;
  capability: GenerationCapability;
} {
  const settings = { ...DEFAULT_GENERATION_SETTINGS, ...deps.generation };
  const storage = builderStorage(deps);
  const context: GenerationContext = {
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    config: deps.config,
    storage,
    replicate: replicateAccess(deps, { clientTtlMs: settings.cacheTtlMs }),
    settings,
    fetchOutput: outboundFetch({ allowPrivate: deps.config.allowPrivateUrls }),
    schemas: new TtlCache<InputSchema | null>(deps.clock, settings.cacheTtlMs),
    deliveries: deps.deliveries,
  };
  return {
    replicateRoutes: replicateRoutes(context, new TtlCache<ModelList>(deps.clock, settings.cacheTtlMs)),
    generationRoutes: generationRoutes(context),
    fileRoutes: fileRoutes(deps, storage),
    publicFileRoutes: publicFileRoutes(deps, storage),
    worker: createGenerationWorker(context),
    capability: {
      async generate({ workspaceId, kind, model, input, signal }) {
        const row = await generateAndWait(context, workspaceId, { kind, model, input }, signal);
        const json = toGenerationJson(row, deps.config.publicUrl);
        return {
          id: json.id,
          status: json.status,
          outputs: json.outputs.map(({ url, content_type }) => ({ url, content_type })),
          error: json.error,
        };
      },
    },
  };
}
