import type { Deps } from "../deps.ts";
import type { WorkflowRunner } from "../workflows/runs/workflow-runner.ts";
import { McpClients } from "./mcp-clients.ts";
import { McpEndpoint } from "./mcp-endpoint.ts";
import { backgroundOAuth } from "./mcp-oauth.ts";
import { defaultMcpSettings } from "./mcp-settings.ts";
import { mcpToolSource } from "./mcp-tool-source.ts";
import { mcpServerRoutes } from "./routes.ts";

/**
 * MCP both ways as the app mounts it: the connections routes (`/api/mcp-servers`), this process's
 * pool of client connections that agents' and Tool nodes' MCP tools share, and the builder's own
 * MCP endpoint (`/api/mcp`), which needs the finished deps and the workflow runner (`serve`).
 *
 * @example const mcp = createMcpFeature(deps); const endpoint = mcp.serve(fullDeps, () => runner);
 */
export function createMcpFeature(deps: Deps) {
  const clients = new McpClients(deps, { ...defaultMcpSettings, ...deps.mcp }, (row) =>
    backgroundOAuth(deps, row),
  );
  let endpoint: McpEndpoint | undefined;
  return {
    clients,
    /** MCP tools for agents and the workflow Tool node. */
    tools: mcpToolSource(deps, clients),
    serverRoutes: mcpServerRoutes(deps, clients),
    /** For `Deps.mcpExposure`: open MCP sessions of the workspace hear that its tool list changed. */
    exposure: { changed: (workspaceId: string) => endpoint?.changed(workspaceId) },
    serve(fullDeps: Deps, runner: () => WorkflowRunner): McpEndpoint {
      endpoint = new McpEndpoint(fullDeps, runner);
      return endpoint;
    },
    stop: async () => {
      await endpoint?.close();
      await clients.closeAll();
    },
  };
}
