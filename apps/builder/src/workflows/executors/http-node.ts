import { setTimeout as sleepFor } from "node:timers/promises";
import type { Clock } from "@app/core";
import {
  type ExecutorContext,
  HTTP_METHODS,
  type HttpData,
  type HttpMethod,
  NodeExecutionError,
  parseRetryAfter,
  type RetryPolicy,
  retryDelayMs,
} from "@app/workflow";
import { type FetchFunction, OutboundUrlError } from "../../outbound/outbound-fetch.ts";

/** Responses are read into the run record, so their size is capped. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** The `http_request` tool's `retries`, spaced as the HTTP node's deprecated `data.retries` were. */
const TOOL_RETRY: Omit<RetryPolicy, "max_attempts"> = {
  backoff: "exponential",
  initial_ms: 250,
  max_ms: 60_000,
};

/** The secret of a stored credential of the run's workspace (`auth.credential_id`). */
export type CredentialSecrets = (credentialId: string) => Promise<string>;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  json?: unknown;
}

export interface HttpAttempt {
  signal: AbortSignal;
  clock: Clock;
  /** Whether a 429 or 5xx answer is the result (the last attempt) or an error to retry on. */
  isLastAttempt: boolean;
  /** Sent as `Idempotency-Key` unless the request sets one, so a receiver can drop a repeat. */
  idempotencyKey?: string;
}

/**
 * Sends once the request an HTTP node (or the `http_request` tool) describes: templated method,
 * URL, headers, query and body (an object is sent as JSON, or as a form when the content type says
 * so; a string as is), auth (inline, or a stored credential's secret), a timeout. A 429 or 5xx
 * answer before the last attempt throws `http_status_<code>` with the server's Retry-After, for the
 * engine's retry; on the last attempt it is the result, for the workflow to branch on.
 *
 * @example const result = await sendHttpRequest(fetch, data, { signal, clock, isLastAttempt: true }, secrets);
 */
export async function sendHttpRequest(
  fetch: FetchFunction,
  data: HttpData,
  attempt: HttpAttempt,
  secrets: CredentialSecrets,
): Promise<HttpResult> {
  const { signal } = attempt;
  const method = checkMethod(data.method);
  const url = buildUrl(data.url, data.query);
  const headers = new Headers(data.headers ?? {});
  await applyAuth(headers, data.auth, secrets);
  if (attempt.idempotencyKey !== undefined && !headers.has("idempotency-key")) {
    headers.set("idempotency-key", attempt.idempotencyKey);
  }
  const body = encodeBody(data.body, headers, method);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(data.timeout_ms ?? DEFAULT_TIMEOUT_MS)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof OutboundUrlError) throw new NodeExecutionError("url_not_allowed", error.message);
    if (error instanceof NodeExecutionError) throw error;
    throw describeFailure(error, data);
  }
  const isRetryable = response.status === 429 || response.status >= 500;
  if (isRetryable && !attempt.isLastAttempt) {
    await response.body?.cancel();
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), attempt.clock.now());
    throw new NodeExecutionError(
      `http_status_${response.status}`,
      `The server answered ${response.status}.`,
      {
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    );
  }
  return readResponse(response);
}

/**
 * The node executor over `sendHttpRequest`: one attempt per call (the engine retries under the
 * node's `retry`), each with `Idempotency-Key: <run id>:<node id>`, the same on every attempt and on
 * a resumed run.
 *
 * @example const executors = { http: httpNodeExecutor(fetch, secrets, clock), … };
 */
export function httpNodeExecutor(fetch: FetchFunction, secrets: CredentialSecrets, clock: Clock) {
  return async ({ inputs, signal, runId, node, attempt, maxAttempts }: ExecutorContext<"http">) => {
    const result = await sendHttpRequest(
      fetch,
      inputs as HttpData,
      { signal, clock, isLastAttempt: attempt >= maxAttempts, idempotencyKey: `${runId}:${node.id}` },
      secrets,
    );
    return { outputs: { ...result } };
  };
}

/**
 * `sendHttpRequest` tried up to `retries + 1` times, for the `http_request` tool (agents call it
 * outside any workflow engine); the waits follow the same rule as a node's `retry`.
 *
 * @example const result = await sendWithRetries(fetch, { ...data, retries: 2 }, { signal, clock }, secrets);
 */
export async function sendWithRetries(
  fetch: FetchFunction,
  data: HttpData,
  context: { signal: AbortSignal; clock: Clock },
  secrets: CredentialSecrets,
): Promise<HttpResult> {
  const policy: RetryPolicy = { ...TOOL_RETRY, max_attempts: (data.retries ?? 0) + 1 };
  for (let attempt = 1; ; attempt++) {
    const isLastAttempt = attempt >= policy.max_attempts;
    try {
      return await sendHttpRequest(fetch, data, { ...context, isLastAttempt }, secrets);
    } catch (error) {
      const isRetryable =
        error instanceof NodeExecutionError &&
        (error.code.startsWith("http_status_") ||
          error.code === "http_request_failed" ||
          error.code === "http_timeout");
      if (isLastAttempt || !isRetryable || context.signal.aborted) throw error;
      await sleepFor(retryDelayMs(policy, attempt, error.retryAfterMs), undefined, {
        signal: context.signal,
      });
    }
  }
}

function buildUrl(raw: string, query: Record<string, string> | undefined): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NodeExecutionError("invalid_url", `Not an absolute URL: ${raw.slice(0, 200)}`);
  }
  for (const [name, value] of Object.entries(query ?? {})) url.searchParams.append(name, value);
  return url.toString();
}

async function applyAuth(headers: Headers, auth: HttpData["auth"], secrets: CredentialSecrets) {
  if (!auth || auth.type === "none") return;
  const inline = auth.type === "bearer" ? auth.token : auth.type === "basic" ? auth.password : auth.value;
  const secret = auth.credential_id ? await credentialSecret(secrets, auth.credential_id) : (inline ?? "");
  if (auth.type === "bearer") headers.set("authorization", `Bearer ${secret}`);
  if (auth.type === "basic") {
    headers.set("authorization", `Basic ${Buffer.from(`${auth.username}:${secret}`).toString("base64")}`);
  }
  if (auth.type === "api_key") headers.set(auth.header, secret);
}

async function credentialSecret(secrets: CredentialSecrets, credentialId: string): Promise<string> {
  try {
    return await secrets(credentialId);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new NodeExecutionError("credential_unavailable", `auth.credential_id: ${message}`);
  }
}

/** The method a (possibly templated) `method` came to; anything else fails the node. */
function checkMethod(method: string): HttpMethod {
  const upper = method.trim().toUpperCase();
  const known = HTTP_METHODS.find((candidate) => candidate === upper);
  if (!known) {
    throw new NodeExecutionError(
      "invalid_method",
      `The method is ${JSON.stringify(method.slice(0, 100))}; it must be one of ${HTTP_METHODS.join(", ")}.`,
    );
  }
  return known;
}

function encodeBody(body: unknown, headers: Headers, method: string): string | null {
  if (body === undefined || body === null || method === "GET" || method === "HEAD") return null;
  if (typeof body === "string") {
    if (!headers.has("content-type")) headers.set("content-type", "text/plain; charset=utf-8");
    return body;
  }
  const contentType = headers.get("content-type") ?? "";
  if (contentType.startsWith("application/x-www-form-urlencoded") && typeof body === "object") {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      form.append(name, typeof value === "string" ? value : JSON.stringify(value));
    }
    return form.toString();
  }
  if (!contentType) headers.set("content-type", "application/json");
  return JSON.stringify(body);
}

async function readResponse(response: Response): Promise<HttpResult> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > MAX_RESPONSE_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  }
  const body = Buffer.concat(chunks).toString("utf8");
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const result: HttpResult = { status: response.status, headers, body };
  if ((headers["content-type"] ?? "").includes("json")) {
    try {
      result.json = JSON.parse(body);
    } catch {
      // A body that claims JSON but is not stays available as `body`.
    }
  }
  return result;
}

function tooLarge() {
  return new NodeExecutionError(
    "response_too_large",
    `The response is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB.`,
  );
}

function describeFailure(error: unknown, data: HttpData): NodeExecutionError {
  if (error instanceof Error && error.name === "TimeoutError") {
    return new NodeExecutionError(
      "http_timeout",
      `No answer within ${data.timeout_ms ?? DEFAULT_TIMEOUT_MS} ms.`,
    );
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown }).code;
  if (code === "EPRIVATEADDRESS") {
    return new NodeExecutionError(
      "url_not_allowed",
      "The URL points at a private, loopback or reserved address.",
    );
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return new NodeExecutionError("http_request_failed", `The request failed: ${message}`);
}
