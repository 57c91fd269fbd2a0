import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import express from "express";

/** What the fake authorization server saw, for tests to check the client followed the flow. */
export interface FakeAuthorization {
  /** The issuer (`http://127.0.0.1:port/`), which is also where the MCP server is. */
  issuer: string;
  /** Clients registered with dynamic client registration (RFC 7591). */
  clients: OAuthClientInformationFull[];
  /** Authorization requests: PKCE challenge method and the `resource` indicator (RFC 8707). */
  authorizations: { clientId: string; redirectUri: string; resource: string | undefined; scopes: string[] }[];
  /** Token requests by grant type, oldest first. */
  grants: ("authorization_code" | "refresh_token")[];
  /** Makes every access token issued so far invalid (as if it expired); refresh tokens still work. */
  expireAccessTokens(): void;
}

interface IssuedCode {
  client: string;
  challenge: string;
  redirectUri: string;
  resource: string | undefined;
}

/**
 * The authorization side of an MCP server that requires OAuth 2.1, built from the official SDK's
 * server pieces: protected resource metadata (RFC 9728), authorization server metadata (RFC 8414),
 * dynamic client registration, the authorization endpoint (PKCE S256, approving at once as if the
 * user clicked "Allow") and the token endpoint (authorization code with the verifier checked,
 * refresh tokens rotated). `guard` answers 401 with `WWW-Authenticate: Bearer resource_metadata=…`
 * unless a valid access token is presented.
 *
 * @example const oauth = createFakeAuthorization(`http://127.0.0.1:${port}`); // then route requests through oauth.handle
 */
export function createFakeAuthorization(origin: string): FakeAuthorization & {
  /** Serves the OAuth endpoints and guards `/mcp`; calls `next` for what the MCP server itself serves. */
  handle(request: IncomingMessage, response: ServerResponse, next: () => void): void;
} {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, AuthInfo>();
  const refreshTokens = new Map<string, { client: string; resource: string | undefined }>();
  const state: FakeAuthorization = {
    issuer: `${origin}/`,
    clients: [],
    authorizations: [],
    grants: [],
    expireAccessTokens: () => accessTokens.clear(),
  };

  const issue = (client: string, resource: string | undefined): OAuthTokens => {
    const access = `at_${randomBytes(16).toString("hex")}`;
    const refresh = `rt_${randomBytes(16).toString("hex")}`;
    accessTokens.set(access, {
      token: access,
      clientId: client,
      scopes: ["mcp"],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      ...(resource ? { resource: new URL(resource) } : {}),
    });
    refreshTokens.set(refresh, { client, resource });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: refresh,
      scope: "mcp",
    };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (client) => {
      const full = client as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      state.clients.push(full);
      return full;
    },
  };

  const provider: OAuthServerProvider = {
    get clientsStore() {
      return clientsStore;
    },
    async authorize(client, params: AuthorizationParams, res) {
      const code = `code_${randomBytes(16).toString("hex")}`;
      codes.set(code, {
        client: client.client_id,
        challenge: params.codeChallenge,
        redirectUri: params.redirectUri,
        resource: params.resource?.href,
      });
      state.authorizations.push({
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        resource: params.resource?.href,
        scopes: params.scopes ?? [],
      });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      res.redirect(302, target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const issued = codes.get(code);
      if (!issued) throw new InvalidGrantError("unknown authorization code");
      return issued.challenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri, resource) {
      const issued = codes.get(code);
      codes.delete(code);
      if (!issued || issued.client !== client.client_id)
        throw new InvalidGrantError("unknown authorization code");
      if (redirectUri !== undefined && redirectUri !== issued.redirectUri)
        throw new InvalidGrantError("redirect_uri does not match the authorization request");
      if (resource?.href !== issued.resource) throw new InvalidGrantError("resource does not match");
      state.grants.push("authorization_code");
      return issue(client.client_id, issued.resource);
    },
    async exchangeRefreshToken(client, refreshToken) {
      const known = refreshTokens.get(refreshToken);
      refreshTokens.delete(refreshToken);
      if (!known || known.client !== client.client_id) throw new InvalidGrantError("unknown refresh token");
      state.grants.push("refresh_token");
      return issue(client.client_id, known.resource);
    },
    async verifyAccessToken(token) {
      const info = accessTokens.get(token);
      if (!info) throw new InvalidTokenError("the access token is unknown or expired");
      return info;
    },
  };

  const app = express();
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(state.issuer),
      resourceServerUrl: new URL(`${origin}/mcp`),
      scopesSupported: ["mcp"],
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );
  app.use(
    "/mcp",
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    }),
  );
  // Past the guard (or not an OAuth endpoint): hand the request back to the MCP server.
  app.use((request) => {
    (request as unknown as { passOn: () => void }).passOn();
  });

  return {
    ...state,
    handle(request, response, next) {
      (request as unknown as { passOn: () => void }).passOn = next;
      app(request as express.Request, response as express.Response, () => {});
    },
  };
}
