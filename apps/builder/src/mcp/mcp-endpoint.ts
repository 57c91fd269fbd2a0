import { createHmac, hkdfSync, randomBytes } from "node:crypto";
import { type Clock, constantTimeEqual } from "@app/core";
import { errorBodySchema, errorResponses, jsonContent } from "@app/http";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { BEARER_CHALLENGE } from "../auth/require-auth.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { McpErrors } from "./errors.ts";
import { callExposedTool, type ExposedTool, listExposedTools } from "./exposed-tools.ts";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.ts";

/** How often an open notification stream compares the workspace's tools with what it last saw. */
const TOOLS_POLL_MS = 5_000;
/** A comment line now and then keeps proxies from closing a quiet notification stream. */
const KEEPALIVE_MS = 25_000;
/** Sessions hold no state, so they need not end; a month bounds how long a leaked session id lives. */
const SESSION_LIFETIME_MS = 30 * 86_400_000;

/**
 * The builder as an MCP server (Streamable HTTP, the official SDK's web-standard transport): each
 * API key's workspace sees its exposed agents and workflows as tools.
 *
 * Every request is served by a fresh server and a stateless transport, so any builder process (or
 * host behind a load balancer) answers any request of a session. The session id is a token signed
 * with the server's secret and bound to the workspace that opened it: it proves itself, no process
 * has to remember it, and another workspace's key cannot use it. Progress notifications travel on
 * the call's own event stream; `tools/list_changed` on the session's GET stream, which watches the
 * workspace's tools (at once for changes made in this process, every few seconds for the others).
 *
 * @example const endpoint = new McpEndpoint(deps, () => runner); app.all("/api/mcp", (c) => endpoint.handle(c));
 */
export class McpEndpoint {
  /** Open notification streams of this process, by workspace: told at once of changes made here. */
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(
    private readonly deps: Deps,
    private readonly runner: () => WorkflowRunner,
  ) {}

  async handle(c: Context<AppEnv>): Promise<Response> {
    const principal = c.get("principal");
    if (principal.via !== "api_key") throw McpErrors.MCP_API_KEY_REQUIRED({ headers: BEARER_CHALLENGE });
    // The input guard has read the body already (Hono caches its text), so the transport gets it parsed.
    let parsedBody: unknown;
    if (c.req.method === "POST") {
      try {
        parsedBody = await c.req.json();
      } catch {
        return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
      }
    }
    const sessions = sessionTokens(this.deps.config.secretKey, this.deps.clock);
    const sessionId = c.req.header("mcp-session-id");
    // Another workspace's session is as unknown as an expired or forged one.
    if (sessionId !== undefined && !sessions.isValid(sessionId, principal.workspaceId)) {
      return jsonRpcError(404, -32001, "Session not found; initialize a new one.");
    }
    if (c.req.method === "GET") {
      if (sessionId === undefined) {
        return jsonRpcError(400, -32000, "Start with an initialize request (POST) to open a session.");
      }
      return this.notificationStream(principal.workspaceId, c.req.raw.signal);
    }
    if (c.req.method === "DELETE") {
      if (sessionId === undefined)
        return jsonRpcError(400, -32000, "Name the session to close in Mcp-Session-Id.");
      return new Response(null, { status: 200 });
    }
    const isInitialize = isInitializeRequest(parsedBody);
    if (sessionId === undefined && !isInitialize) {
      return jsonRpcError(400, -32000, "Start with an initialize request (POST) to open a session.");
    }
    const sdk = await loadMcpSdk();
    const server = this.newServer(sdk, principal.workspaceId);
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody });
    if (!isInitialize || response.status !== 200) return response;
    const headers = new Headers(response.headers);
    headers.set("mcp-session-id", sessions.issue(principal.workspaceId));
    return new Response(response.body, { status: response.status, headers });
  }

  /** Tells the workspace's open notification streams in this process that its tool list changed. */
  changed(workspaceId: string): void {
    for (const check of this.watchers.get(workspaceId) ?? []) check();
  }

  async close(): Promise<void> {
    for (const checks of this.watchers.values()) for (const check of checks) check();
    this.watchers.clear();
  }

  /**
   * The session's GET stream: a `tools/list_changed` notification whenever the workspace's exposed
   * tools differ from what the stream last saw.
   */
  private notificationStream(workspaceId: string, signal: AbortSignal): Response {
    const encoder = new TextEncoder();
    let seen: string | undefined;
    let timers: NodeJS.Timeout[] = [];
    let isClosed = false;
    const checks = this.watchers.get(workspaceId) ?? new Set<() => void>();
    this.watchers.set(workspaceId, checks);
    const stop = (controller?: ReadableStreamDefaultController<Uint8Array>) => {
      if (isClosed) return;
      isClosed = true;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      checks.delete(check);
      if (checks.size === 0) this.watchers.delete(workspaceId);
      try {
        controller?.close();
      } catch {
        // Already closed by the client.
      }
    };
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    const check = () => {
      if (isClosed) return stop(stream);
      listExposedTools(this.deps, workspaceId).then(
        (tools) => {
          const current = JSON.stringify(tools.map(toolDescription));
          const isChange = seen !== undefined && current !== seen;
          seen = current;
          if (isChange && !isClosed) {
            const notification = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
            stream?.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(notification)}\n\n`));
          }
        },
        (error: unknown) => this.deps.logger.warn({ err: error }, "MCP tool list not read for notifications"),
      );
    };
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        stream = controller;
        controller.enqueue(encoder.encode(": notifications of this session\n\n"));
        checks.add(check);
        check();
        timers.push(setInterval(check, TOOLS_POLL_MS));
        timers.push(setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), KEEPALIVE_MS));
        signal.addEventListener("abort", () => stop(controller), { once: true });
      },
      cancel: () => stop(),
    });
    return new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
    });
  }

  private newServer(sdk: McpSdk, workspaceId: string): Server {
    const { Server, ListToolsRequestSchema, CallToolRequestSchema } = sdk;
    const server = new Server(
      { name: "builder", version: "0.1.0" },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: "The agents and workflows this workspace exposes, as tools.",
      },
    );
    // One request per server: the listing a call resolves its name against is read once.
    let tools: Promise<ExposedTool[]> | undefined;
    const toolsOf = () => {
      tools ??= listExposedTools(this.deps, workspaceId);
      return tools;
    };
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await toolsOf()).map(toolDescription),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
      const target = (await toolsOf()).find((tool) => tool.name === request.params.name);
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

function isInitializeRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      typeof message === "object" &&
      message !== null &&
      (message as { method?: unknown }).method === "initialize",
  );
}

/**
 * Session ids as self-proving tokens: `<issued at, base36>.<random>.<HMAC of workspace, time and
 * random>`, under a key derived from the server's secret. Checking one needs no storage and leaks
 * nothing through timing.
 */
function sessionTokens(masterSecret: string, clock: Clock) {
  const key = sessionKey(masterSecret);
  const sign = (workspaceId: string, issuedAt: string, nonce: string) =>
    createHmac("sha256", key).update(`${workspaceId}.${issuedAt}.${nonce}`).digest("base64url");
  return {
    issue(workspaceId: string): string {
      const issuedAt = clock.now().getTime().toString(36);
      const nonce = randomBytes(16).toString("base64url");
      return `${issuedAt}.${nonce}.${sign(workspaceId, issuedAt, nonce)}`;
    },
    isValid(token: string, workspaceId: string): boolean {
      const [issuedAt = "", nonce = "", signature = "", extra] = token.split(".");
      if (extra !== undefined || !issuedAt || !nonce || !signature || token.length > 200) return false;
      if (!constantTimeEqual(signature, sign(workspaceId, issuedAt, nonce))) return false;
      const age = clock.now().getTime() - Number.parseInt(issuedAt, 36);
      return Number.isFinite(age) && age >= 0 && age < SESSION_LIFETIME_MS;
    },
  };
}

const sessionKeys = new Map<string, Buffer>();

function sessionKey(masterSecret: string): Buffer {
  let key = sessionKeys.get(masterSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", masterSecret, "builder", "mcp/session-ids/v1", 32));
    sessionKeys.set(masterSecret, key);
  }
  return key;
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
    // Closing a protocol session changes nothing of the workspace's: not an audit-log entry.
    "x-audit-action": "",
    method: "delete",
    path: MCP_ENDPOINT_PATH,
    tags: ["mcp"],
    summary: "Close the session",
    description,
    request: { headers: sessionHeader },
    responses: { 200: { description: "Closed" }, ...transportErrors(400, 401, 404) },
  });
}
