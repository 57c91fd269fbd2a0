import type { Clock } from "@app/core";
import { type RerankingModel, rerank } from "ai";
import type { BuilderConfig } from "../config.ts";
import { resolveProviderAccess } from "../credentials/resolve-provider-access.ts";
import type { BuilderDb } from "../db/index.ts";
import { providerApiError } from "../providers/errors.ts";

/** Providers whose AI SDK package offers reranking models (among those installed here). */
export const RERANK_PROVIDERS = ["cohere"] as const;
export type RerankSetting = { provider: (typeof RERANK_PROVIDERS)[number]; model: string };

/**
 * Candidates handed to the reranker: the first stage's best `max(4 × top_k, 40)`. A cross-encoder
 * reads each one with the question, so the count is the call's cost; Cohere bills per 100.
 */
export function rerankCandidates(topK: number): number {
  return Math.max(topK * 4, 40);
}

/**
 * Reorders `texts` for `query` with the provider's rerank model (AI SDK `rerank`), answering the
 * best `topN` as indexes into `texts` with the model's relevance (0–1). Provider failures become the
 * provider errors every other call answers (424 refused key or none, 429, 502, 504).
 *
 * @example const ranked = await rerankTexts(deps, workspaceId, { provider: "cohere", model: "rerank-v3.5" }, "refunds", texts, 5);
 */
export async function rerankTexts(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  workspaceId: string,
  setting: RerankSetting,
  query: string,
  texts: readonly string[],
  topN: number,
): Promise<{ index: number; score: number }[]> {
  if (texts.length === 0) return [];
  const access = await resolveProviderAccess(deps, workspaceId, { provider: setting.provider });
  // Loaded on first use, as for chat models (see providers/language-model.ts).
  const { createCohere } = await import("@ai-sdk/cohere");
  const model: RerankingModel = createCohere({
    apiKey: access.apiKey,
    fetch: access.fetch,
    ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
  }).rerankingModel(setting.model);
  try {
    const result = await rerank({ model, query, documents: [...texts], topN, maxRetries: 0 });
    return result.ranking.map((item) => ({ index: item.originalIndex, score: item.score }));
  } catch (error) {
    throw providerApiError(error, { provider: access.provider, apiKey: access.apiKey });
  }
}
