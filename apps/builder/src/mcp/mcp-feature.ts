import type { Deps } from "../deps.ts";
import { defaultMcpSettings, McpClients } from "./mcp-clients.ts";
import { mcpToolSource } from "./mcp-tool-source.ts";
import { mcpServerRoutes } from "./routes.ts";

/**
 * MCP as the app mounts it: the connections routes (`/api/mcp-servers`) and this process's pool of
 * client connections, which agents' and Tool nodes' MCP tools share.
 *
 * @example const mcp = createMcpFeature(deps); app.route("/api/mcp-servers", mcp.serverRoutes); await mcp.stop();
 */
export function createMcpFeature(deps: Deps) {
  const clients = new McpClients(deps, { ...defaultMcpSettings, ...deps.mcp });
  return {
    clients,
    /** MCP tools for agents and the workflow Tool node. */
    tools: mcpToolSource(deps, clients),
    serverRoutes: mcpServerRoutes(deps, clients),
    stop: () => clients.closeAll(),
  };
}
