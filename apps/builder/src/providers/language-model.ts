import type { LanguageModel } from "ai";
import type { FetchFunction } from "../outbound/outbound-fetch.ts";

// The SDK prints compatibility warnings with console.warn; our logs are JSON lines only.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** What is needed to reach a provider: always an explicit key, so no SDK reads the environment. */
export interface ProviderAccess {
  provider: string;
  apiKey: string;
  /** A base URL from the credential; undefined means the provider's own endpoint. */
  baseUrl: string | undefined;
  fetch: FetchFunction;
}

/** Models kept for reuse; more distinct key and model pairs than this are rare in one process. */
const MODEL_CACHE_SIZE = 256;
const models = new Map<string, LanguageModel>();

/**
 * The AI SDK chat model of one of the catalogue's providers. OpenAI goes through `.chat()`
 * (chat completions, which every OpenAI-like endpoint speaks), not the default Responses API.
 *
 * Models are reused per provider, endpoint, key and model id: building one builds the SDK's
 * response schemas, which costs about a millisecond of every chat turn otherwise. The fetch of a
 * given access depends only on whether it has a base URL (and the process's fixed outbound
 * policy), so the key holds everything that can differ.
 *
 * @example const model = await createLanguageModel(access, "gpt-4o-mini");
 */
export async function createLanguageModel(access: ProviderAccess, modelId: string): Promise<LanguageModel> {
  const key = [access.provider, access.baseUrl ?? "", access.apiKey, modelId].join("\u0000");
  const cached = models.get(key);
  if (cached) {
    // Map order is insertion order: re-inserting marks the entry as recently used.
    models.delete(key);
    models.set(key, cached);
    return cached;
  }
  const model = await buildLanguageModel(access, modelId);
  models.set(key, model);
  if (models.size > MODEL_CACHE_SIZE) models.delete(models.keys().next().value as string);
  return model;
}

/**
 * Each provider's SDK is loaded the first time one of its models is built: together they are about
 * 2 MB of JavaScript, most of which a given installation never runs, and loading them all was a
 * measurable part of every start.
 */
async function buildLanguageModel(access: ProviderAccess, modelId: string): Promise<LanguageModel> {
  const settings = {
    apiKey: access.apiKey,
    fetch: access.fetch,
    ...(access.baseUrl ? { baseURL: access.baseUrl } : {}),
  };
  switch (access.provider) {
    case "openai":
      return (await import("@ai-sdk/openai")).createOpenAI(settings).chat(modelId);
    case "anthropic":
      return (await import("@ai-sdk/anthropic")).createAnthropic(settings)(modelId);
    case "google":
      return (await import("@ai-sdk/google")).createGoogleGenerativeAI(settings)(modelId);
    case "mistral":
      return (await import("@ai-sdk/mistral")).createMistral(settings)(modelId);
    case "groq":
      return (await import("@ai-sdk/groq")).createGroq(settings)(modelId);
    case "cohere":
      return (await import("@ai-sdk/cohere")).createCohere(settings)(modelId);
    case "deepseek":
      return (await import("@ai-sdk/deepseek")).createDeepSeek(settings)(modelId);
    case "xai":
      return (await import("@ai-sdk/xai")).createXai(settings).chat(modelId);
    case "openai-compatible": {
      if (!access.baseUrl) throw new Error("openai-compatible needs a base URL");
      // Without includeUsage, compatible servers stream no token counts and billing would see zero.
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: access.baseUrl,
        apiKey: access.apiKey,
        fetch: access.fetch,
        includeUsage: true,
      })(modelId);
    }
    default:
      throw new Error(`unknown provider ${access.provider}`);
  }
}
