import { randomBytes, timingSafeEqual } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { eq } from "drizzle-orm";
import type { Deps } from "../deps.ts";
import { mcpFailure } from "./connect-mcp.ts";
import { McpErrors } from "./errors.ts";
import { mcpFetch } from "./mcp-fetch.ts";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.ts";
import { openMcpJson, sealMcpJson } from "./mcp-secrets.ts";
import { type McpServerRow, mcpServers } from "./schema.ts";

/** Where the authorization server sends the user back (a public route: `state` proves the right to it). */
export const OAUTH_CALLBACK_PATH = "/api/mcp-servers/oauth/callback";
/** An authorization the user has not finished within this long must be started again. */
const PENDING_TTL_MS = 15 * 60_000;

/** A connection's OAuth state, stored encrypted in `encrypted_oauth`. */
interface StoredOAuth {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  pending?: { state: string; verifier?: string; startedAt: number };
}

type OAuthDeps = Pick<Deps, "db" | "clock" | "config">;

/**
 * The SDK's OAuth client provider over a connection's row. `interactive` (starting or finishing an
 * authorization a person asked for) registers the client, keeps the PKCE verifier and captures the
 * URL to send the person to; in the background (a pooled connection) only refreshed tokens are
 * saved, and a server that wants a new authorization makes the call fail with "authorize it again".
 */
class StoredOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;

  constructor(
    private readonly deps: OAuthDeps,
    private readonly row: McpServerRow,
    private stored: StoredOAuth,
    private readonly isInteractive: boolean,
  ) {}

  get redirectUrl(): string {
    return `${this.deps.config.publicUrl}${OAUTH_CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Builder",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // A public client: PKCE, not a stored client secret, protects the code exchange.
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    const state = `${this.row.id}.${randomBytes(24).toString("base64url")}`;
    this.stored.pending = { state, startedAt: this.deps.clock.now().getTime() };
    return state;
  }

  clientInformation() {
    return this.stored.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed) {
    this.stored.client = client;
    if (this.isInteractive) await this.persist();
  }

  tokens() {
    return this.stored.tokens;
  }

  async saveTokens(tokens: OAuthTokens) {
    this.stored.tokens = tokens;
    delete this.stored.pending;
    await this.persist();
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  async saveCodeVerifier(verifier: string) {
    if (!this.stored.pending) throw new Error("no authorization is pending");
    this.stored.pending.verifier = verifier;
    if (this.isInteractive) await this.persist();
  }

  codeVerifier(): string {
    const verifier = this.stored.pending?.verifier;
    if (!verifier) throw new Error("no authorization is pending");
    return verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    // A refused refresh token may only mean that another process refreshed first (servers rotate
    // refresh tokens): take the tokens it stored, and the SDK's retry refreshes with those.
    if (!this.isInteractive && scope === "tokens") {
      const [row] = await this.deps.db
        .select({ encryptedOauth: mcpServers.encryptedOauth })
        .from(mcpServers)
        .where(eq(mcpServers.id, this.row.id))
        .limit(1);
      const latest = row
        ? openMcpJson<StoredOAuth>(this.deps.config, this.row, "oauth", row.encryptedOauth)
        : undefined;
      const refresh = latest?.tokens?.refresh_token;
      if (refresh && refresh !== this.stored.tokens?.refresh_token) {
        this.stored = latest;
        return;
      }
    }
    if (scope === "all" || scope === "client") delete this.stored.client;
    if (scope === "all" || scope === "tokens") delete this.stored.tokens;
    if (scope === "all" || scope === "verifier") delete this.stored.pending;
    await this.persist();
  }

  private async persist() {
    await this.deps.db
      .update(mcpServers)
      .set({ encryptedOauth: sealMcpJson(this.deps.config, this.row, "oauth", this.stored) })
      .where(eq(mcpServers.id, this.row.id));
  }
}

function stored(deps: OAuthDeps, row: McpServerRow): StoredOAuth {
  return openMcpJson<StoredOAuth>(deps.config, row, "oauth", row.encryptedOauth) ?? {};
}

/**
 * The OAuth provider pooled connections use: the stored tokens, refreshed (and saved) by the SDK
 * when the server answers 401. Undefined for connections without OAuth or not authorized yet.
 *
 * @example new McpClients(deps, settings, (row) => backgroundOAuth(deps, row));
 */
export function backgroundOAuth(deps: OAuthDeps, row: McpServerRow): OAuthClientProvider | undefined {
  if (row.authType !== "oauth") return undefined;
  const state = stored(deps, row);
  // Never authorized: the server's 401 is the answer. With a provider, the SDK would register a
  // client and start a flow that no person is there to finish.
  if (!state.tokens) return undefined;
  return new StoredOAuthProvider(deps, row, state, false);
}

/**
 * Starts the MCP authorization flow (discovery, dynamic client registration, PKCE) and answers
 * the URL to send the person to; the authorization server then calls back `OAUTH_CALLBACK_PATH`.
 *
 * @example const { authorizationUrl } = await startMcpAuthorization(deps, row);
 */
export async function startMcpAuthorization(
  deps: OAuthDeps,
  row: McpServerRow,
): Promise<{ authorizationUrl: string }> {
  if (row.authType !== "oauth") throw McpErrors.MCP_OAUTH_NOT_ENABLED();
  const provider = new StoredOAuthProvider(deps, row, { client: stored(deps, row).client }, true);
  let result: Awaited<ReturnType<McpSdk["auth"]>>;
  try {
    result = await (await loadMcpSdk()).auth(provider, {
      serverUrl: row.url,
      fetchFn: mcpFetch({ allowPrivate: deps.config.allowPrivateUrls }),
    });
  } catch (error) {
    throw mcpFailure(error, row.name);
  }
  if (result !== "REDIRECT" || !provider.authorizationUrl) {
    throw new Error("the authorization flow did not ask for the person's consent");
  }
  return { authorizationUrl: provider.authorizationUrl.href };
}

/**
 * Finishes an authorization from the callback: `state` names the connection and must match the
 * pending authorization (and be recent); the code is exchanged with the stored PKCE verifier and
 * the tokens stored encrypted.
 *
 * @example const row = await finishMcpAuthorization(deps, { code, state });
 */
export async function finishMcpAuthorization(
  deps: OAuthDeps,
  callback: { code: string; state: string },
): Promise<McpServerRow> {
  const serverId = callback.state.split(".")[0] ?? "";
  const [row] = await deps.db.select().from(mcpServers).where(eq(mcpServers.id, serverId)).limit(1);
  const state = row?.authType === "oauth" ? stored(deps, row) : undefined;
  const pending = state?.pending;
  if (!row || !state || !pending || !sameSecret(pending.state, callback.state)) {
    throw McpErrors.MCP_OAUTH_STATE_INVALID();
  }
  if (deps.clock.now().getTime() - pending.startedAt > PENDING_TTL_MS) {
    throw McpErrors.MCP_OAUTH_STATE_INVALID({ message: "The authorization took too long; start it again." });
  }
  const provider = new StoredOAuthProvider(deps, row, state, true);
  try {
    await (await loadMcpSdk()).auth(provider, {
      serverUrl: row.url,
      authorizationCode: callback.code,
      fetchFn: mcpFetch({ allowPrivate: deps.config.allowPrivateUrls }),
    });
  } catch (error) {
    throw mcpFailure(error, row.name);
  }
  // A new version of the connection: pooled connections made before the tokens existed are replaced.
  const [updated] = await deps.db
    .update(mcpServers)
    .set({ updatedAt: deps.clock.now() })
    .where(eq(mcpServers.id, row.id))
    .returning();
  return updated ?? row;
}

function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
