import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { audited, requires } from "../workspaces/roles.ts";
import {
  createMcpServerBody,
  mcpAuthorizationSchema,
  mcpServerCheckSchema,
  mcpServerSchema,
  oauthCallbackQuery,
} from "./contract.ts";
import { createMcpServer } from "./create-mcp-server.ts";
import { deleteMcpServer } from "./delete-mcp-server.ts";
import { McpErrors } from "./errors.ts";
import { findMcpServer } from "./find-mcp-server.ts";
import { listMcpServers } from "./list-mcp-servers.ts";
import type { McpClients } from "./mcp-clients.ts";
import { finishMcpAuthorization, startMcpAuthorization } from "./mcp-oauth.ts";
import { toMcpServerJson, toMcpToolJson } from "./mcp-server-json.ts";

const routes = resourceRoutes({ tag: "mcp", schema: mcpServerSchema });

const createServerRoute = {
  ...routes.create({
    summary: "Connect a remote MCP server to the workspace (its token and headers are stored encrypted)",
    description: "Stored",
    body: createMcpServerBody,
    errors: [400, 401, 413, 422],
  }),
  ...requires("admin"),
  ...audited("mcp_server.created"),
};

const listServersRoute = routes.list({
  summary: "List the workspace's MCP servers, newest first",
  description: "A page of MCP servers",
  query: listQuerySchema,
  page: listOf(mcpServerSchema).openapi("McpServerList"),
});

const getServerRoute = routes.get({
  summary: "Get an MCP server, with the tools it listed when last reached",
  description: "The MCP server",
});

const deleteServerRoute = {
  ...routes.delete({
    summary: "Delete an MCP server (agents and Tool nodes using it then report it missing)",
  }),
  ...requires("admin"),
  ...audited("mcp_server.deleted"),
};

const testServerRoute = createRoute({
  ...requires("admin"),
  method: "post",
  path: "/{id}/test",
  tags: ["mcp"],
  summary: "Connect to the server and list its tools (remembered on the server for agents and the studio)",
  request: { params: idParam },
  responses: {
    200: { description: "The server answered", content: jsonContent(mcpServerCheckSchema) },
    ...errorResponses(401, 404, 422, 424, 502, 504),
  },
});

const authorizeServerRoute = createRoute({
  ...requires("admin"),
  method: "post",
  path: "/{id}/authorize",
  tags: ["mcp"],
  summary:
    "Start the OAuth 2.1 authorization of a server that requires it (PKCE, dynamic client registration)",
  request: { params: idParam },
  responses: {
    200: { description: "Where to send the person", content: jsonContent(mcpAuthorizationSchema) },
    ...errorResponses(401, 404, 422, 424, 502, 504),
  },
});

const oauthCallbackRoute = createRoute({
  method: "get",
  path: "/oauth/callback",
  tags: ["mcp"],
  summary: "Where the authorization server sends the person back (public: the state names the authorization)",
  security: [],
  request: { query: oauthCallbackQuery },
  responses: {
    200: {
      description: "A page saying the server is connected",
      content: { "text/html": { schema: z.string() } },
    },
    ...errorResponses(400, 422, 424, 502),
  },
});

export function mcpServerRoutes(deps: Deps, clients: McpClients) {
  const router = createRouter<AppEnv>();
  router.openapi(createServerRoute, async (c) => {
    const row = await createMcpServer(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json(toMcpServerJson(row), 201);
  });
  router.openapi(listServersRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listMcpServers(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toMcpServerJson), 200);
  });
  router.openapi(getServerRoute, async (c) => {
    const row = await findMcpServer(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw McpErrors.MCP_SERVER_NOT_FOUND();
    return c.json(toMcpServerJson(row), 200);
  });
  router.openapi(deleteServerRoute, async (c) => {
    const isDeleted = await deleteMcpServer(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw McpErrors.MCP_SERVER_NOT_FOUND();
    clients.forget(c.req.valid("param").id);
    return c.body(null, 204);
  });
  router.openapi(authorizeServerRoute, async (c) => {
    const row = await findMcpServer(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw McpErrors.MCP_SERVER_NOT_FOUND();
    const { authorizationUrl } = await startMcpAuthorization(deps, row);
    return c.json({ authorization_url: authorizationUrl }, 200);
  });
  router.openapi(oauthCallbackRoute, async (c) => {
    const row = await finishMcpAuthorization(deps, c.req.valid("query"));
    return c.html(
      `<!doctype html><meta charset="utf-8"><title>Connected</title><p>${escapeHtml(row.name)} is connected. You can close this window.</p>`,
      200,
    );
  });
  router.openapi(testServerRoute, async (c) => {
    const row = await findMcpServer(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw McpErrors.MCP_SERVER_NOT_FOUND();
    const check = await clients.check(row);
    return c.json(
      {
        ok: true as const,
        transport: check.transport,
        server: check.server,
        tools: check.tools.map(toMcpToolJson),
        latency_ms: check.latencyMs,
      },
      200,
    );
  });
  return router;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
