import { APICallError } from "ai";
import { findProvider } from "./catalogue.ts";
import type { ProviderAccess } from "./language-model.ts";

/** How each provider lists the models a key can use: where, with which headers, and how to read ids. */
function listingRequest(access: ProviderAccess): { url: string; headers: Record<string, string> } {
  const base = (access.baseUrl ?? findProvider(access.provider)?.default_base_url ?? "").replace(/\/+$/, "");
  const bearer = { authorization: `Bearer ${access.apiKey}` };
  switch (access.provider) {
    case "anthropic":
      return {
        url: `${base}/models?limit=1000`,
        headers: { "x-api-key": access.apiKey, "anthropic-version": "2023-06-01" },
      };
    case "google":
      return { url: `${base}/models?pageSize=1000`, headers: { "x-goog-api-key": access.apiKey } };
    case "cohere":
      // Chat is on /v2, but the model list only exists on /v1.
      return { url: `${base.replace(/\/v2$/, "/v1")}/models?page_size=1000`, headers: bearer };
    default:
      return { url: `${base}/models`, headers: bearer };
  }
}

function modelIds(provider: string, body: unknown): string[] {
  const record = (body ?? {}) as { data?: { id?: unknown }[]; models?: { name?: unknown }[] };
  if (provider === "google") {
    return (record.models ?? [])
      .map((model) => String(model.name ?? "").replace(/^models\//, ""))
      .filter(Boolean);
  }
  if (provider === "cohere")
    return (record.models ?? []).map((model) => String(model.name ?? "")).filter(Boolean);
  return (record.data ?? []).map((model) => String(model.id ?? "")).filter(Boolean);
}

/**
 * The model ids a provider reports for this key, from its own listing endpoint. It costs no
 * tokens, which also makes it the cheap call that checks a key. Failures throw the SDK's
 * `APICallError`, so they map to answers like any other provider call.
 *
 * @example const ids = await listLiveModels(access, AbortSignal.timeout(10_000));
 */
export async function listLiveModels(access: ProviderAccess, signal: AbortSignal): Promise<string[]> {
  const { url, headers } = listingRequest(access);
  let response: Response;
  try {
    response = await access.fetch(url, { headers, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new APICallError({ message: "Cannot connect to API", url, requestBodyValues: {}, cause: error });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new APICallError({
      message: providerMessage(text) ?? response.statusText,
      url,
      requestBodyValues: {},
      statusCode: response.status,
      responseHeaders: Object.fromEntries(response.headers.entries()),
      responseBody: text,
    });
  }
  try {
    return modelIds(access.provider, JSON.parse(text));
  } catch {
    return [];
  }
}

/** The human message inside the error bodies of OpenAI, Anthropic, Google and Cohere alike. */
function providerMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
    if (typeof parsed.error?.message === "string") return parsed.error.message;
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: fall through to the status text
  }
  return undefined;
}
