import type { Clock } from "@app/core";
import Replicate from "replicate";
import type { BuilderConfig } from "../config.ts";
import { GenerationErrors } from "./errors.ts";

/** How long the webhook signing secret is trusted before it is fetched again (it rarely rotates). */
const SECRET_TTL_MS = 60 * 60_000;

/** The one Replicate client of the process, and the webhook signing secret it fetches. */
export interface ReplicateAccess {
  /** The client; throws 424 when no token is configured. */
  client(): Replicate;
  isConfigured: boolean;
  /** Replicate's webhook signing secret (`whsec_…`), fetched once and cached. */
  webhookSecret(): Promise<string>;
}

/**
 * Builds the Replicate client from the server-wide token and base URL. `useFileOutput: false`
 * keeps outputs as plain URLs: the client would otherwise download every output eagerly into memory.
 *
 * @example const access = replicateAccess(config, clock); await access.client().predictions.get("abc");
 */
export function replicateAccess(config: BuilderConfig, clock: Clock): ReplicateAccess {
  const token = config.replicate.apiToken;
  const client = token
    ? new Replicate({
        auth: token,
        useFileOutput: false,
        ...(config.replicate.baseUrl ? { baseUrl: config.replicate.baseUrl.replace(/\/$/, "") } : {}),
      })
    : undefined;
  let secret: { value: string; fetchedAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return {
    isConfigured: client !== undefined,
    client() {
      if (!client) throw GenerationErrors.REPLICATE_NOT_CONFIGURED();
      return client;
    },
    async webhookSecret() {
      const now = clock.now().getTime();
      if (secret && now - secret.fetchedAt < SECRET_TTL_MS) return secret.value;
      if (!client) throw GenerationErrors.REPLICATE_NOT_CONFIGURED();
      // Concurrent webhooks share one fetch rather than each asking Replicate.
      pending ??= client.webhooks.default.secret
        .get()
        .then(({ key }) => {
          secret = { value: key, fetchedAt: clock.now().getTime() };
          return key;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
  };
}

/** Status and Replicate's own `detail` of an error the client threw, when it came from an HTTP answer. */
export function replicateErrorInfo(error: unknown): { status: number; detail: string } | undefined {
  if (!(error instanceof Error) || error.name !== "ApiError") return undefined;
  // Duck-typed: the client's Response may come from another realm (a test runner's), failing instanceof.
  const status = (error as Error & { response?: { status?: unknown } }).response?.status;
  if (typeof status !== "number") return undefined;
  // The client consumes the body and keeps it only in the message, after the first ": ".
  const text = error.message.slice(error.message.indexOf(": ") + 2).replace(/\.$/, "");
  let detail = text;
  try {
    const parsed = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (typeof parsed.detail === "string") detail = parsed.detail;
    else if (typeof parsed.title === "string") detail = parsed.title;
  } catch {
    // Not JSON: keep the text as it is.
  }
  return { status, detail: detail.slice(0, 500) };
}
