import { type ApiError, defineErrors } from "@app/http";
import { APICallError, RetryError } from "ai";
import { findProvider } from "./catalogue.ts";

export const ProviderErrors = defineErrors({
  PROVIDER_NOT_CONFIGURED: {
    status: 424,
    message: "There is no API key for this provider: add one with POST /api/credentials.",
  },
  PROVIDER_REJECTED_CREDENTIALS: { status: 424, message: "The provider rejected the API key." },
  PROVIDER_RATE_LIMITED: { status: 429, message: "The provider is rate limiting requests; retry later." },
  PROVIDER_TIMEOUT: { status: 504, message: "The provider did not answer in time." },
  PROVIDER_UNREACHABLE: { status: 502, message: "The provider could not be reached." },
  PROVIDER_ERROR: { status: 502, message: "The provider answered with an error." },
  UNKNOWN_PROVIDER: { status: 404, message: "No provider with this id." },
});

/** When a provider asks to wait but says not how long. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;
const MAX_PROVIDER_MESSAGE_LENGTH = 500;

/**
 * Turns whatever a provider call threw into a clear answer: a refused key is 424, a rate limit
 * 429 with Retry-After, an unreachable or failing provider 502; the provider's own message is
 * kept (with the key scrubbed out) because it is what tells people what to fix.
 *
 * @example throw providerApiError(error, { provider: "openai", apiKey });
 */
export function providerApiError(error: unknown, context: { provider: string; apiKey?: string }): ApiError {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  const name = findProvider(context.provider)?.name ?? context.provider;
  if (!APICallError.isInstance(cause)) {
    return ProviderErrors.PROVIDER_ERROR({
      message: `${name} call failed: ${scrub(messageOf(cause), context.apiKey)}`,
    });
  }
  const said = scrub(cause.message, context.apiKey);
  const status = cause.statusCode;
  if (status === undefined) {
    return ProviderErrors.PROVIDER_UNREACHABLE({
      message: `${name} could not be reached: ${connectionProblem(cause)}`,
    });
  }
  if (status === 401 || status === 403 || (status === 400 && /api[ _-]?key/i.test(said))) {
    return ProviderErrors.PROVIDER_REJECTED_CREDENTIALS({ message: `${name} rejected the API key: ${said}` });
  }
  if (status === 429) {
    return ProviderErrors.PROVIDER_RATE_LIMITED({
      message: `${name} is rate limiting requests: ${said}`,
      headers: { "Retry-After": String(retryAfterSeconds(cause.responseHeaders ?? {})) },
    });
  }
  if (status === 408 || status === 504) {
    return ProviderErrors.PROVIDER_TIMEOUT({ message: `${name} timed out: ${said}` });
  }
  const headers = cause.responseHeaders ?? {};
  // A failing provider that says when to come back is heard: a node's retry waits that long.
  const isRetryAfterGiven = Object.keys(headers).some((key) => /^retry-after(-ms)?$/i.test(key));
  return ProviderErrors.PROVIDER_ERROR({
    message: `${name} answered ${status}: ${said}`,
    ...(status >= 500 && isRetryAfterGiven
      ? { headers: { "Retry-After": String(retryAfterSeconds(headers)) } }
      : {}),
  });
}

/** Seconds to wait, from `retry-after-ms`, `retry-after` (seconds or an HTTP date), else a default. */
export function retryAfterSeconds(headers: Record<string, string>, now: Date = new Date()): number {
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(lower["retry-after-ms"]);
  if (Number.isFinite(ms) && ms > 0) return Math.max(1, Math.ceil(ms / 1000));
  const raw = lower["retry-after"];
  if (raw !== undefined) {
    const seconds = Number(raw);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1, Math.ceil(seconds));
    const date = Date.parse(raw);
    if (Number.isFinite(date)) return Math.max(1, Math.ceil((date - now.getTime()) / 1000));
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}

function connectionProblem(error: APICallError): string {
  const cause = error.cause as { cause?: { code?: string; message?: string }; code?: string } | undefined;
  const inner = cause?.cause ?? cause;
  if (inner?.code === "EPRIVATEADDRESS") return "the address is private and private URLs are not allowed";
  if (inner?.code) return inner.code;
  return "connection failed";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "unknown error";
}

function scrub(message: string, apiKey: string | undefined): string {
  const cleaned = apiKey && apiKey.length >= 4 ? message.split(apiKey).join("[redacted]") : message;
  return cleaned.length > MAX_PROVIDER_MESSAGE_LENGTH
    ? `${cleaned.slice(0, MAX_PROVIDER_MESSAGE_LENGTH)}…`
    : cleaned;
}
