/**
 * The parts of the official MCP SDK the builder uses, imported by the first MCP connection or
 * request rather than at start: with ajv, which its client and server check tool schemas with,
 * they are about 0.5 MB of JavaScript that most starts never run.
 */
async function importMcpSdk() {
  const [clientAuth, client, sse, streamableHttp, server, serverTransport, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/auth.js"),
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    auth: clientAuth.auth,
    UnauthorizedError: clientAuth.UnauthorizedError,
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    SseError: sse.SseError,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    Server: server.Server,
    WebStandardStreamableHTTPServerTransport: serverTransport.WebStandardStreamableHTTPServerTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  };
}

export type McpSdk = Awaited<ReturnType<typeof importMcpSdk>>;

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

/**
 * The MCP SDK, imported on the first call.
 *
 * @example const { Client } = await loadMcpSdk();
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importMcpSdk().then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/**
 * The MCP SDK if it was imported already, for synchronous checks of an error's class: until it is,
 * no error can be one of its classes.
 *
 * @example const sdk = loadedMcpSdk(); if (sdk && error instanceof sdk.McpError) …
 */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}
