import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { createFakeAuthorization, type FakeAuthorization } from "./fake-oauth.ts";

export interface FakeMcpCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** The Authorization header of the HTTP request that carried the call. */
  authorization: string | undefined;
  /** The HTTP headers of the request that carried the call. */
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeMcpOptions {
  /** When set, every request must carry `Authorization: Bearer <token>`, else 401. */
  bearerToken?: string;
  /** Only the older HTTP+SSE transport (GET /sse, POST /messages); Streamable HTTP requests get 404. */
  sseOnly?: boolean;
  /** Answer every request with this status (a server that is up but broken). */
  failWith?: number;
  /** Require OAuth 2.1 access tokens from the fake authorization server on the same origin. */
  oauth?: boolean;
}

export interface FakeMcp {
  /** The MCP endpoint: `/mcp` for Streamable HTTP, `/sse` for the older transport. */
  url: string;
  calls: FakeMcpCall[];
  /** Releases calls of the `wait` tool, which otherwise wait until the client gives up. */
  release(): void;
  /** Adds a tool to the server's list (and notifies connected clients that the list changed). */
  addTool(name: string, text: string): void;
  /** With `oauth`: the authorization server's record of registrations, authorizations and grants. */
  oauth: FakeAuthorization | undefined;
  close(): Promise<void>;
}

/**
 * An MCP server built with the official SDK on 127.0.0.1, speaking Streamable HTTP (or, with
 * `sseOnly`, the older HTTP+SSE transport). Tools: `echo({ text })`, `add({ a, b })` with a
 * structured result, `weather({ city, units })`, `fail()` (a tool error), `crash()` (throws),
 * `big({ size })` (a long text), `wait()` (answers when `release()` is called).
 *
 * @example const mcp = await startFakeMcp({ bearerToken: "t0k" }); // mcp.url → http://127.0.0.1:port/mcp
 */
export async function startFakeMcp(options: FakeMcpOptions = {}): Promise<FakeMcp> {
  const calls: FakeMcpCall[] = [];
  const waiting: (() => void)[] = [];
  const extraTools: { name: string; text: string }[] = [];
  const servers = new Set<McpServer>();

  type Extra = { requestInfo?: { headers: Record<string, string | string[] | undefined> } };
  const record = (tool: string, args: Record<string, unknown>, extra: Extra) => {
    const headers = extra.requestInfo?.headers ?? {};
    const authorization = headers.authorization;
    calls.push({
      tool,
      arguments: args,
      authorization: typeof authorization === "string" ? authorization : undefined,
      headers,
    });
  };

  const newServer = () => {
    const server = new McpServer(
      { name: "fake-mcp", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      "echo",
      { description: "Echoes the text back.", inputSchema: { text: z.string().describe("What to echo") } },
      async (args, extra) => {
        record("echo", args, extra);
        return { content: [{ type: "text", text: `echo: ${args.text}` }] };
      },
    );
    server.registerTool(
      "add",
      {
        description: "Adds two numbers.",
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      async (args, extra) => {
        record("add", args, extra);
        const sum = args.a + args.b;
        return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
      },
    );
    server.registerTool(
      "weather",
      {
        description: "The weather in a city.",
        inputSchema: { city: z.string(), units: z.enum(["metric", "imperial"]) },
      },
      async (args, extra) => {
        record("weather", args, extra);
        const degrees = args.units === "metric" ? "21 °C" : "70 °F";
        return { content: [{ type: "text", text: `${args.city}: sunny, ${degrees}` }] };
      },
    );
    server.registerTool("fail", { description: "Always reports an error." }, async (extra) => {
      record("fail", {}, extra);
      return { isError: true, content: [{ type: "text", text: "the upstream service is down" }] };
    });
    server.registerTool("crash", { description: "Throws inside the server." }, async (extra) => {
      record("crash", {}, extra);
      throw new Error("boom");
    });
    server.registerTool(
      "big",
      { description: "Returns a long text.", inputSchema: { size: z.number().int() } },
      async (args, extra) => {
        record("big", args, extra);
        return { content: [{ type: "text", text: "x".repeat(args.size) }] };
      },
    );
    server.registerTool("wait", { description: "Answers when the test releases it." }, async (extra) => {
      record("wait", {}, extra);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { content: [{ type: "text", text: "released" }] };
    });
    for (const extra of extraTools) {
      server.registerTool(extra.name, { description: extra.text }, async () => ({
        content: [{ type: "text", text: extra.text }],
      }));
    }
    servers.add(server);
    return server;
  };

  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (options.failWith) {
      response.writeHead(options.failWith, { "content-type": "text/plain" }).end("broken");
      return;
    }
    if (options.bearerToken && request.headers.authorization !== `Bearer ${options.bearerToken}`) {
      response.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
      response.end(JSON.stringify({ error: "invalid_token" }));
      return;
    }
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (options.sseOnly) {
      if (request.method === "GET" && url.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", response);
        sse.set(transport.sessionId, transport);
        transport.onclose = () => sse.delete(transport.sessionId);
        await newServer().connect(transport);
        return;
      }
      const transport = sse.get(url.searchParams.get("sessionId") ?? "");
      if (request.method === "POST" && url.pathname === "/messages" && transport) {
        await transport.handlePostMessage(request, response);
        return;
      }
      response.writeHead(404).end();
      return;
    }
    if (url.pathname !== "/mcp") {
      response.writeHead(404).end();
      return;
    }
    const sessionId = request.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? streamable.get(sessionId) : undefined;
    if (existing) {
      await existing.handleRequest(request, response);
      return;
    }
    if (request.method !== "POST" || sessionId !== undefined) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
      );
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        streamable.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) streamable.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(request, response);
  };

  let authorization: ReturnType<typeof createFakeAuthorization> | undefined;
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  };
  const http = createServer((request, response) => {
    if (authorization) authorization.handle(request, response, () => serve(request, response));
    else serve(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  if (options.oauth) authorization = createFakeAuthorization(`http://127.0.0.1:${port}`);

  return {
    url: `http://127.0.0.1:${port}${options.sseOnly ? "/sse" : "/mcp"}`,
    calls,
    oauth: authorization,
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
    addTool(name, text) {
      extraTools.push({ name, text });
      for (const server of servers) {
        server.registerTool(name, { description: text }, async () => ({ content: [{ type: "text", text }] }));
      }
    },
    async close() {
      for (const resolve of waiting.splice(0)) resolve();
      for (const transport of streamable.values()) await transport.close().catch(() => {});
      for (const transport of sse.values()) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
