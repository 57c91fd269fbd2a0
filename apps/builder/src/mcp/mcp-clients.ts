import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Deps } from "../deps.ts";
import { connectMcp, type McpConnection, type McpTransportKind, mcpFailure } from "./connect-mcp.ts";
import { mcpFetch } from "./mcp-fetch.ts";
import { loadedMcpSdk } from "./mcp-sdk.ts";
import { connectionHeaders, type McpSecrets, openMcpJson } from "./mcp-secrets.ts";
import { defaultMcpSettings, type McpSettings } from "./mcp-settings.ts";
import { rememberTools } from "./remember-tools.ts";
import type { KnownMcpTool, McpServerRow } from "./schema.ts";

interface PoolEntry {
  connection: Promise<McpConnection>;
  tools?: { list: KnownMcpTool[]; at: number } | undefined;
}

export interface McpCheck {
  transport: McpTransportKind;
  server: { name: string; version: string } | null;
  tools: KnownMcpTool[];
  latencyMs: number;
}

type PoolDeps = Pick<Deps, "db" | "clock" | "config" | "logger">;

/**
 * Open MCP client connections of this process, one per server version, so an agent turn's tool
 * call costs one request instead of a handshake. A connection that fails is closed and dropped;
 * the next use opens a new one (Streamable HTTP sessions that the server forgot answer 404 and are
 * reopened once, transparently).
 *
 * @example const result = await clients.callTool(row, "echo", { text: "hi" }, signal);
 */
export class McpClients {
  private readonly pool = new Map<string, PoolEntry>();

  constructor(
    private readonly deps: PoolDeps,
    readonly settings: McpSettings = defaultMcpSettings,
    private readonly authProviderFor: (row: McpServerRow) => OAuthClientProvider | undefined = () =>
      undefined,
  ) {}

  /** Connects afresh (not pooled), lists the tools and remembers them on the row. */
  async check(row: McpServerRow): Promise<McpCheck> {
    const started = performance.now();
    let connection: McpConnection | undefined;
    try {
      connection = await this.connect(row);
      const tools = await this.fetchTools(connection, this.settings.connectTimeoutMs);
      const version = connection.client.getServerVersion();
      await rememberTools(this.deps.db, row, tools, this.deps.clock.now());
      return {
        transport: connection.transport,
        server: version ? { name: version.name, version: version.version } : null,
        tools,
        latencyMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      throw mcpFailure(error, row.name);
    } finally {
      await connection?.client.close().catch(() => {});
    }
  }

  /**
   * The server's tools, from this process's recent listing when there is one. Throws the API error
   * of the failure (unreachable, refused credentials, timeout).
   */
  async listTools(row: McpServerRow, signal?: AbortSignal): Promise<KnownMcpTool[]> {
    return this.withConnection(row, async (connection, entry) => {
      const now = performance.now();
      if (entry.tools && now - entry.tools.at < this.settings.toolListTtlMs) return entry.tools.list;
      const list = await this.fetchTools(connection, this.settings.connectTimeoutMs, signal);
      entry.tools = { list, at: now };
      if (JSON.stringify(list) !== JSON.stringify(row.tools)) {
        await rememberTools(this.deps.db, row, list, this.deps.clock.now()).catch((error: unknown) =>
          this.deps.logger.warn({ err: error, mcp_server_id: row.id }, "MCP tool list not remembered"),
        );
      }
      return list;
    });
  }

  /** Calls one tool; the server's own tool errors come back as `isError` results, not exceptions. */
  async callTool(
    row: McpServerRow,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    return this.withConnection(row, async ({ client }) => {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        timeout: this.settings.callTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      return result as CallToolResult;
    });
  }

  /** Closes this process's connections to a server (it was deleted). */
  forget(serverId: string): void {
    for (const [key, entry] of this.pool) {
      if (key.startsWith(`${serverId}@`)) this.drop(key, entry);
    }
  }

  async closeAll(): Promise<void> {
    const entries = [...this.pool.values()];
    this.pool.clear();
    await Promise.all(entries.map((entry) => this.closeEntry(entry)));
  }

  private async withConnection<T>(
    row: McpServerRow,
    use: (connection: McpConnection, entry: PoolEntry) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const key = `${row.id}@${row.updatedAt.getTime()}`;
      const entry = this.entry(key, row);
      try {
        const connection = await entry.connection;
        return await use(connection, entry);
      } catch (error) {
        // An SDK error means the SDK was loaded (connecting loads it); before that none can be one.
        const sdk = loadedMcpSdk();
        // The server answered the tool call with a JSON-RPC error: the connection itself is fine.
        const isProtocolAnswer =
          sdk !== undefined &&
          error instanceof sdk.McpError &&
          error.code !== sdk.ErrorCode.RequestTimeout &&
          error.code !== sdk.ErrorCode.ConnectionClosed;
        if (!isProtocolAnswer) this.drop(key, entry);
        const isSessionGone =
          sdk !== undefined && error instanceof sdk.StreamableHTTPError && error.code === 404;
        if (isSessionGone && attempt === 0) continue;
        if (isProtocolAnswer) throw error;
        throw mcpFailure(error, row.name);
      }
    }
  }

  private entry(key: string, row: McpServerRow): PoolEntry {
    const existing = this.pool.get(key);
    if (existing) {
      // Most recently used last, so the first key is the one to close when the pool is full.
      this.pool.delete(key);
      this.pool.set(key, existing);
      return existing;
    }
    const entry: PoolEntry = { connection: this.connect(row) };
    entry.connection.then(
      ({ client }) => {
        // Connected, so the SDK is loaded.
        const { ToolListChangedNotificationSchema } = loadedMcpSdk() as NonNullable<
          ReturnType<typeof loadedMcpSdk>
        >;
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          entry.tools = undefined;
        });
        client.onclose = () => this.drop(key, entry);
      },
      () => this.drop(key, entry),
    );
    this.pool.set(key, entry);
    if (this.pool.size > this.settings.maxConnections) {
      const [oldestKey, oldest] = this.pool.entries().next().value ?? [];
      if (oldestKey && oldest) this.drop(oldestKey, oldest);
    }
    return entry;
  }

  private drop(key: string, entry: PoolEntry): void {
    if (this.pool.get(key) !== entry) return;
    this.pool.delete(key);
    void this.closeEntry(entry);
  }

  private async closeEntry(entry: PoolEntry): Promise<void> {
    const connection = await entry.connection.catch(() => undefined);
    await connection?.client.close().catch(() => {});
  }

  private connect(row: McpServerRow): Promise<McpConnection> {
    const secrets = openMcpJson<McpSecrets>(this.deps.config, row, "secrets", row.encryptedSecrets);
    return connectMcp(
      {
        url: row.url,
        transport: row.transport,
        headers: connectionHeaders(secrets),
        authProvider: this.authProviderFor(row),
      },
      {
        fetch: mcpFetch({ allowPrivate: this.deps.config.allowPrivateUrls }),
        timeoutMs: this.settings.connectTimeoutMs,
      },
    );
  }

  private async fetchTools(
    { client }: McpConnection,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<KnownMcpTool[]> {
    const tools: KnownMcpTool[] = [];
    let cursor: string | undefined;
    // A server pages its list; a bound keeps a misbehaving one from paging forever.
    for (let page = 0; page < 20; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      });
      for (const tool of result.tools) {
        tools.push({
          name: tool.name,
          title: tool.title ?? tool.annotations?.title,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Record<string, unknown>,
        });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }
}
