import { randomUUID } from "node:crypto";
import { errorBodySchema, errorResponses, jsonContent } from "@app/http";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { BEARER_CHALLENGE } from "../auth/require-auth.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { McpErrors } from "./errors.ts";
import { callExposedTool, type ExposedTool, listExposedTools } from "./exposed-tools.ts";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.ts";

/** What a session's server knows: whose tools it serves, and the listing calls resolve names against. */
interface SessionTools {
  workspaceId: string;
  /** Refreshed by tools/list, by exposure changes, or with age. */
  tools?: { list: Promise<ExposedTool[]>; at: number } | undefined;
}

interface Session extends SessionTools {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeenAt: number;
}

/** Sessions live in this process's memory; these bound what idle or abandoned clients can hold. */
const MAX_SESSIONS = 1000;
const IDLE_SESSION_MS = 30 * 60_000;
/**
 * How long a call may resolve a tool name from the session's last listing: it saves two queries a
 * call, and bounds how long a tool un-exposed by another process stays callable here.
 */
const TOOLS_FRESH_MS = 5_000;

/**
 * The builder as an MCP server (Streamable HTTP, the official SDK's web-standard transport): each
 * API key's workspace sees its exposed agents and workflows as tools. Sessions are kept in this
 * process; a session id is only good with a key of the workspace that opened it.
 *
 * @example const endpoint = new McpEndpoint(deps, () => runner); app.all("/api/mcp", (c) => endpoint.handle(c));
 */
export class McpEndpoint {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly deps: Deps,
    private readonly runner: () => WorkflowRunner,
  ) {}

  async handle(c: Context<AppEnv>): Promise<Response> {
    const principal = c.get("principal");
    if (principal.via !== "api_key") throw McpErrors.MCP_API_KEY_REQUIRED({ headers: BEARER_CHALLENGE });
    // The input guard has read the body already (Hono caches its text), so the transport gets it parsed.
    let options: { parsedBody?: unknown } = {};
    if (c.req.method === "POST") {
      try {
        options = { parsedBody: await c.req.json() };
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
      }
    }
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      // Another workspace's session is as unknown as an expired one.
      if (!session || session.workspaceId !== principal.workspaceId) {
        return jsonRpcError(404, -32001, "Session not found; initialize a new one.");
      }
      session.lastSeenAt = performance.now();
      return session.transport.handleRequest(c.req.raw, options);
    }
    if (c.req.method !== "POST") {
      return jsonRpcError(400, -32000, "Start with an initialize request (POST) to open a session.");
    }
    this.sweep();
    const sdk = await loadMcpSdk();
    const tools: SessionTools = { workspaceId: principal.workspaceId };
    const server = this.newServer(sdk, tools);
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    // The server's handlers and the session share `tools`, so exposure changes reach both.
    const session: Session = Object.assign(tools, { server, transport, lastSeenAt: performance.now() });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, options);
    // Not an initialize request: the transport refused it and no session exists to keep.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  /** Tells the workspace's open sessions in this process that its tool list changed. */
  changed(workspaceId: string): void {
    for (const session of this.sessions.values()) {
      if (session.workspaceId !== workspaceId) continue;
      session.tools = undefined;
      session.server.sendToolListChanged().catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, "MCP tools/list_changed not sent");
      });
    }
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }

  private sweep(): void {
    const now = performance.now();
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeenAt > IDLE_SESSION_MS || this.sessions.size >= MAX_SESSIONS) {
        this.sessions.delete(id);
        void session.server.close().catch(() => {});
      }
    }
  }

  private toolsOf(session: SessionTools, isFresh: boolean): Promise<ExposedTool[]> {
    const now = performance.now();
    if (isFresh || !session.tools || now - session.tools.at > TOOLS_FRESH_MS) {
      const list = listExposedTools(this.deps, session.workspaceId);
      session.tools = { list, at: now };
      list.catch(() => {
        session.tools = undefined;
      });
    }
    return session.tools.list;
  }

  private newServer(sdk: McpSdk, session: SessionTools): Server {
    const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk;
    const { workspaceId } = session;
    const server = new Server(
      { name: "builder", version: "0.1.0" },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: "The agents and workflows this workspace exposes, as tools.",
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const tools = await this.toolsOf(session, true);
      return { tools: tools.map(toolDescription) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const tools = await this.toolsOf(session, false);
      const target = tools.find((tool) => tool.name === request.params.name);
      if (!target) {
        return {
          isError: true,
          content: [{ type: "text", text: `There is no tool ${request.params.name}; list the tools again.` }],
        };
      }
      const progressToken = request.params._meta?.progressToken;
      let progress = 0;
      const report =
        progressToken === undefined
          ? undefined
          : (message: string, total?: number) => {
              progress += 1;
              const notification: ServerNotification = {
                method: "notifications/progress",
                params: { progressToken, progress, ...(total ? { total } : {}), message },
              };
              extra.sendNotification(notification).catch(() => {});
            };
      return callExposedTool(this.deps, this.runner(), workspaceId, target, request.params.arguments ?? {}, {
        signal: extra.signal,
        report,
      });
    });
    return server;
  }
}

function toolDescription(tool: ExposedTool) {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/** Where the builder serves MCP (Streamable HTTP). */
export const MCP_ENDPOINT_PATH = "/api/mcp";

/**
 * Documents the MCP endpoint in the OpenAPI document: its bodies are JSON-RPC messages of the MCP
 * specification, not resources of this API.
 *
 * @example registerMcpEndpointDocs(app.openAPIRegistry);
 */
export function registerMcpEndpointDocs(registry: OpenAPIHono<AppEnv>["openAPIRegistry"]): void {
  const description =
    "The Model Context Protocol over Streamable HTTP (https://modelcontextprotocol.io/specification): the workspace's agents and workflows marked `mcp_exposed` are its tools. Authenticate with an API key (`Authorization: Bearer <key>`). See docs/mcp.md.";
  const message = z.record(z.string(), z.unknown()).openapi("McpJsonRpcMessage", {
    description: "A JSON-RPC 2.0 message (or batch) of MCP",
  });
  // 400, 404 and 406 (an Accept without JSON and event streams) come from the MCP transport as JSON-RPC errors, or from our input guard in our shape.
  const jsonRpcError = z
    .object({
      jsonrpc: z.literal("2.0"),
      error: z.object({ code: z.number().int(), message: z.string() }),
      id: z.union([z.string(), z.number(), z.null()]),
    })
    .openapi("McpJsonRpcError");
  const transportErrors = (...statuses: number[]) =>
    Object.fromEntries(
      Object.entries(errorResponses(...statuses)).map(([status, entry]) => [
        status,
        status === "400" || status === "404" || status === "406"
          ? { description: entry.description, content: jsonContent(z.union([errorBodySchema, jsonRpcError])) }
          : entry,
      ]),
    );
  const sessionHeader = z.object({
    "mcp-session-id": z.string().optional().openapi({ description: "From the initialize answer's header" }),
  });
  registry.registerPath({
    method: "post",
    path: MCP_ENDPOINT_PATH,
    tags: ["mcp"],
    summary: "Send MCP messages (initialize opens a session; Mcp-Session-Id carries it after)",
    description,
    request: { headers: sessionHeader, body: { required: true, content: jsonContent(message) } },
    responses: {
      200: {
        description: "A JSON-RPC answer, or an event stream of notifications (progress) and the answer",
        content: { "application/json": { schema: message }, "text/event-stream": { schema: z.string() } },
      },
      202: { description: "A notification or response was accepted" },
      ...transportErrors(400, 401, 404, 406, 413),
    },
  });
  registry.registerPath({
    method: "get",
    path: MCP_ENDPOINT_PATH,
    tags: ["mcp"],
    summary: "Open the session's event stream for server notifications (tools/list_changed)",
    description,
    request: { headers: sessionHeader },
    responses: {
      200: { description: "Server-Sent Events", content: { "text/event-stream": { schema: z.string() } } },
      ...transportErrors(400, 401, 404, 406),
    },
  });
  registry.registerPath({
    method: "delete",
    path: MCP_ENDPOINT_PATH,
    tags: ["mcp"],
    summary: "Close the session",
    description,
    request: { headers: sessionHeader },
    responses: { 200: { description: "Closed" }, ...transportErrors(400, 401, 404) },
  });
}
