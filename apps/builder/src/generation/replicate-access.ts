import { createHash } from "node:crypto";
import type { Clock } from "@app/core";
import Replicate from "replicate";
import type { BuilderConfig } from "../config.ts";
import { REPLICATE_KIND } from "../credentials/contract.ts";
import { findCredentialSecret } from "../credentials/open-credential.ts";
import type { BuilderDb } from "../db/index.ts";
import { GenerationErrors } from "./errors.ts";
import type { GenerationRow } from "./schema.ts";
import { TtlCache } from "./ttl-cache.ts";

/** How long a webhook signing secret is trusted before it is fetched again (it rarely rotates). */
const SECRET_TTL_MS = 60 * 60_000;

/** A Replicate client for one token, with what belongs to that token's account. */
export interface ReplicateClient {
  client: Replicate;
  /** The workspace credential the token came from; null for the server-wide token. */
  credentialId: string | null;
  /**
   * Stands for the token in cache keys, so what one account may see (its private models) is never
   * answered to another. A digest: the token itself is never a key, never logged.
   */
  tokenKey: string;
  /** The account's webhook signing secret (`whsec_…`), fetched once per token and cached. */
  webhookSecret(): Promise<string>;
}

/** Which Replicate token a piece of work uses: a workspace's own credential, or the server-wide token. */
export interface ReplicateAccess {
  /**
   * For new work of a workspace: its newest Replicate credential, else the server-wide token; 424
   * naming both ways to configure one when there is neither.
   */
  forWorkspace(workspaceId: string): Promise<ReplicateClient>;
  /** Like `forWorkspace`, but undefined when there is neither (the model list then answers its curated one). */
  findForWorkspace(workspaceId: string): Promise<ReplicateClient | undefined>;
  /**
   * For a generation already on Replicate (its prediction and webhook secret belong to the account that
   * created it): the credential that created it, or the server-wide token when it was created with that.
   * When its credential was deleted meanwhile, what the workspace would use now (a replacement key of the
   * same account is the usual reason to delete one). Undefined when no token is left.
   */
  forGeneration(
    generation: Pick<GenerationRow, "workspaceId" | "credentialId">,
  ): Promise<ReplicateClient | undefined>;
}

/**
 * A Replicate client for a token, at the server's base URL (a workspace credential has none of its
 * own). `useFileOutput: false` keeps outputs as plain URLs: the client would otherwise download every
 * output eagerly into memory.
 *
 * @example const client = newReplicateClient(config, "r8_…"); await client.accounts.current();
 */
export function newReplicateClient(config: BuilderConfig, token: string): Replicate {
  return new Replicate({
    auth: token,
    useFileOutput: false,
    ...(config.replicate.baseUrl ? { baseUrl: config.replicate.baseUrl.replace(/\/$/, "") } : {}),
  });
}

/**
 * The Replicate tokens of the process: the server-wide one and the workspaces' credentials. Clients
 * and webhook signing secrets are cached per token (bounded, expiring on the clock), so a workspace's
 * calls and webhooks need neither a new client nor a secret fetch each time.
 *
 * @example const access = replicateAccess({ db, clock, config }, { clientTtlMs: 600_000 }); const { client } = await access.forWorkspace("ws_1");
 */
export function replicateAccess(
  deps: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  options: { clientTtlMs: number },
): ReplicateAccess {
  const serverToken = deps.config.replicate.apiToken;
  const clients = new TtlCache<Replicate>(deps.clock, options.clientTtlMs);
  const secrets = new TtlCache<string>(deps.clock, SECRET_TTL_MS);
  const pendingSecrets = new Map<string, Promise<string>>();

  const webhookSecret = (tokenKey: string, client: Replicate): Promise<string> => {
    const cached = secrets.get(tokenKey);
    if (cached !== undefined) return Promise.resolve(cached);
    // Concurrent webhooks of one account share one fetch rather than each asking Replicate.
    let pending = pendingSecrets.get(tokenKey);
    if (!pending) {
      pending = client.webhooks.default.secret
        .get()
        .then(({ key }) => {
          secrets.set(tokenKey, key);
          return key;
        })
        .finally(() => pendingSecrets.delete(tokenKey));
      pendingSecrets.set(tokenKey, pending);
    }
    return pending;
  };

  const toClient = (token: string, credentialId: string | null): ReplicateClient => {
    const tokenKey = createHash("sha256").update(token).digest("base64url");
    let client = clients.get(tokenKey);
    if (!client) {
      client = newReplicateClient(deps.config, token);
      clients.set(tokenKey, client);
    }
    const built = client;
    return { client: built, credentialId, tokenKey, webhookSecret: () => webhookSecret(tokenKey, built) };
  };

  const findForWorkspace = async (workspaceId: string): Promise<ReplicateClient | undefined> => {
    const own = await findCredentialSecret(deps, workspaceId, { kind: REPLICATE_KIND });
    if (own) return toClient(own.secret, own.credentialId);
    return serverToken ? toClient(serverToken, null) : undefined;
  };

  return {
    findForWorkspace,
    async forWorkspace(workspaceId) {
      const found = await findForWorkspace(workspaceId);
      if (!found) throw GenerationErrors.REPLICATE_NOT_CONFIGURED();
      return found;
    },
    async forGeneration(generation) {
      if (!generation.credentialId) return serverToken ? toClient(serverToken, null) : undefined;
      const own = await findCredentialSecret(deps, generation.workspaceId, {
        kind: REPLICATE_KIND,
        credentialId: generation.credentialId,
      });
      if (own) return toClient(own.secret, own.credentialId);
      return findForWorkspace(generation.workspaceId);
    },
  };
}

/**
 * Why a generation has no token to follow its prediction with (`forGeneration` answered undefined).
 *
 * @example missingTokenMessage({ credentialId: null }) // "REPLICATE_API_TOKEN, which started …"
 */
export function missingTokenMessage(generation: Pick<GenerationRow, "credentialId">): string {
  return generation.credentialId
    ? "The Replicate credential that started this generation was deleted, and the workspace has no other Replicate credential and the server no REPLICATE_API_TOKEN to follow it with."
    : "REPLICATE_API_TOKEN, which started this generation, is no longer set on the server, and the generation cannot be followed without it.";
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
