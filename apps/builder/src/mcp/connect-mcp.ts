import { ApiError } from "@app/http";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type FetchFunction, OutboundUrlError } from "../outbound/outbound-fetch.ts";
import { McpErrors } from "./errors.ts";
import { loadedMcpSdk, loadMcpSdk } from "./mcp-sdk.ts";

export type McpTransportKind = "streamable_http" | "sse";

export interface McpTarget {
  url: string;
  transport: "auto" | McpTransportKind;
  headers: Record<string, string>;
  authProvider?: OAuthClientProvider | undefined;
}

export interface McpConnection {
  client: Client;
  transport: McpTransportKind;
}

const CLIENT_INFO = { name: "builder", version: "0.1.0" };

/**
 * Connects to a remote MCP server with the official SDK: Streamable HTTP first and, for `auto`,
 * the older HTTP+SSE transport when the server answers the Streamable HTTP POST with a 4xx (the
 * backwards-compatibility rule of the MCP specification). Every request goes through `fetch`,
 * the outbound fetch with the SSRF guard.
 *
 * @example const { client } = await connectMcp(target, { fetch, timeoutMs: 10_000, signal });
 */
export async function connectMcp(
  target: McpTarget,
  options: { fetch: FetchFunction; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<McpConnection> {
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: target.headers };
  const { Client, SSEClientTransport, StreamableHTTPClientTransport, StreamableHTTPError } =
    await loadMcpSdk();
  const attempt = async (kind: McpTransportKind): Promise<McpConnection> => {
    const transport: Transport =
      kind === "streamable_http"
        ? new StreamableHTTPClientTransport(url, {
            requestInit,
            fetch: options.fetch,
            authProvider: target.authProvider,
            // The SDK's reconnection retries a dropped notification stream on its own schedule; a
            // pooled connection that breaks is dropped and reopened by the next call instead.
            reconnectionOptions: {
              maxRetries: 0,
              initialReconnectionDelay: 1000,
              maxReconnectionDelay: 1000,
              reconnectionDelayGrowFactor: 1,
            },
          })
        : new SSEClientTransport(url, {
            requestInit,
            fetch: options.fetch,
            authProvider: target.authProvider,
          });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    try {
      await client.connect(transport, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    }
    return { client, transport: kind };
  };
  if (target.transport !== "auto") return attempt(target.transport);
  try {
    return await attempt("streamable_http");
  } catch (error) {
    const status = error instanceof StreamableHTTPError ? error.code : undefined;
    if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403)
      throw error;
    return attempt("sse");
  }
}

/**
 * What a failed connection or call means for the person who configured it, as one API error.
 *
 * @example catch (error) { throw mcpFailure(error, server.name); }
 */
export function mcpFailure(error: unknown, serverName: string): ApiError {
  if (error instanceof ApiError) return error;
  const sdk = loadedMcpSdk();
  const status = httpStatusOf(error);
  if ((sdk && error instanceof sdk.UnauthorizedError) || status === 401 || status === 403) {
    return McpErrors.MCP_SERVER_REJECTED_CREDENTIALS({
      message: `MCP server "${serverName}" refused the connection's credentials${status ? ` (HTTP ${status})` : ""}. Check its token or headers, or authorize it again.`,
    });
  }
  if (sdk && error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
    return McpErrors.MCP_SERVER_TIMEOUT({ message: `MCP server "${serverName}" did not answer in time.` });
  }
  if (
    error instanceof OutboundUrlError ||
    (error as { cause?: unknown })?.cause instanceof OutboundUrlError
  ) {
    const reason = error instanceof OutboundUrlError ? error : (error as { cause: OutboundUrlError }).cause;
    return McpErrors.MCP_URL_REFUSED({ message: `MCP server "${serverName}": ${reason.message}` });
  }
  return McpErrors.MCP_SERVER_UNREACHABLE({
    message: `MCP server "${serverName}" could not be reached: ${describe(error)}. Check its URL and that it is running.`,
  });
}

/** The HTTP status an MCP transport's error carries, if it is one. */
function httpStatusOf(error: unknown): number | undefined {
  const sdk = loadedMcpSdk();
  if (!sdk) return undefined;
  return error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError ? error.code : undefined;
}

function describe(error: unknown): string {
  const status = httpStatusOf(error);
  if (status && status > 0) return `HTTP ${status}`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
