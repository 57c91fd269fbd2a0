import type { Clock } from "@app/core";
import { APICallError, type EmbeddingModel, embedMany, RetryError } from "ai";
import type { BuilderConfig } from "../config.ts";
import { resolveProviderAccess } from "../credentials/resolve-provider-access.ts";
import type { BuilderDb } from "../db/index.ts";
import { providerApiError } from "../providers/errors.ts";
import type { ProviderAccess } from "../providers/language-model.ts";
import { LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL, localEmbedding } from "./local-embedder.ts";

/** Providers whose SDK offers embedding models, plus the built-in `local` embedder. */
export const EMBEDDING_PROVIDERS = [
  "local",
  "openai",
  "google",
  "mistral",
  "cohere",
  "openai-compatible",
] as const;

export const DEFAULT_EMBEDDING = { provider: "local", model: LOCAL_EMBEDDING_MODEL } as const;

/** Texts sent per provider call; also the step at which ingestion progress is saved. */
export const EMBEDDING_BATCH_SIZE = 64;

/** Turns texts into vectors of one width. */
export interface Embedder {
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/**
 * An embedding call failed. `isTransient` (rate limits, 5xx, timeouts, unreachable) means retry
 * later with backoff; otherwise (refused key, unknown model, bad request) retrying cannot help.
 */
export class EmbeddingError extends Error {
  override name = "EmbeddingError";
  readonly isTransient: boolean;
  constructor(message: string, isTransient: boolean) {
    super(message);
    this.isTransient = isTransient;
  }
}

/** The local feature-hashing embedder (see local-embedder.ts). */
export const localEmbedder: Embedder = {
  embed: async (texts) => texts.map((text) => localEmbedding(text, LOCAL_EMBEDDING_DIMENSIONS)),
};

/**
 * The embedder of a knowledge base: `local`, or the provider's model through the AI SDK with the
 * workspace's credential (or the server-wide key). Retries are ours, not the SDK's: the ingestion
 * worker schedules them on the database clock so a restart does not lose them.
 *
 * @example const embedder = await embedderFor(deps, workspaceId, { provider: "openai", model: "text-embedding-3-small" });
 */
export async function embedderFor(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  workspaceId: string,
  setting: { provider: string; model: string },
): Promise<Embedder> {
  if (setting.provider === "local") return localEmbedder;
  let access: ProviderAccess;
  try {
    access = await resolveProviderAccess(deps, workspaceId, { provider: setting.provider });
  } catch (error) {
    throw new EmbeddingError(error instanceof Error ? error.message : String(error), false);
  }
  const model = await embeddingModel(access, setting.model);
  return {
    async embed(texts, signal) {
      try {
        const result = await embedMany({
          model,
          values: texts,
          maxRetries: 0,
          ...(signal ? { abortSignal: signal } : {}),
        });
        return result.embeddings;
      } catch (error) {
        if (signal?.aborted) throw error;
        const cause = RetryError.isInstance(error) ? error.lastError : error;
        const isTransient = APICallError.isInstance(cause)
          ? cause.isRetryable || cause.statusCode === undefined
          : false;
        throw new EmbeddingError(
          providerApiError(cause, { provider: access.provider, apiKey: access.apiKey }).message,
          isTransient,
        );
      }
    },
  };
}

/** Each provider's SDK is loaded on first use, as for chat models (see providers/language-model.ts). */
async function embeddingModel(access: ProviderAccess, modelId: string): Promise<EmbeddingModel> {
  const settings = {
    apiKey: access.apiKey,
    fetch: access.fetch,
    ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
  };
  switch (access.provider) {
    case "openai":
      return (await import("@ai-sdk/openai")).createOpenAI(settings).embedding(modelId);
    case "google":
      return (await import("@ai-sdk/google")).createGoogleGenerativeAI(settings).embedding(modelId);
    case "mistral":
      return (await import("@ai-sdk/mistral")).createMistral(settings).embedding(modelId);
    case "cohere":
      return (await import("@ai-sdk/cohere")).createCohere(settings).embedding(modelId);
    case "openai-compatible":
      if (!access.baseUrl)
        throw new EmbeddingError("openai-compatible needs a credential with a base_url.", false);
      return (await import("@ai-sdk/openai-compatible"))
        .createOpenAICompatible({
          name: "openai-compatible",
          baseURL: access.baseUrl,
          apiKey: access.apiKey,
          fetch: access.fetch,
        })
        .embeddingModel(modelId);
    default:
      throw new EmbeddingError(`${access.provider} offers no embedding models here.`, false);
  }
}
