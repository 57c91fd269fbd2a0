import type { Deps } from "../deps.ts";
import type { McpToolSource } from "../ports/tool-ports.ts";
import { findMcpServer } from "./find-mcp-server.ts";
import type { McpClients } from "./mcp-clients.ts";
import { summarizeToolResult } from "./mcp-result.ts";

/**
 * The workspace's MCP servers as agents and Tool nodes use them: tools listed through this
 * process's connection pool (the last listing stored on the server when it cannot be reached now),
 * calls bounded by the pool's timeout and their results by its size limit.
 *
 * @example agentTools: { mcp: mcpToolSource(deps, clients) }
 */
export function mcpToolSource(deps: Pick<Deps, "db">, clients: McpClients): McpToolSource {
  return {
    async open({ workspaceId, serverId, signal }) {
      const row = await findMcpServer(deps.db, workspaceId, serverId);
      if (!row) return undefined;
      let tools = row.tools ?? [];
      let unavailable: string | undefined;
      try {
        tools = await clients.listTools(row, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        unavailable = error instanceof Error ? error.message : String(error);
      }
      return {
        serverName: row.name,
        tools,
        unavailable,
        async call(name, args, callSignal) {
          const started = performance.now();
          const result = await clients.callTool(row, name, args, callSignal);
          return {
            ...summarizeToolResult(result, clients.settings.maxResultChars),
            durationMs: Math.round(performance.now() - started),
          };
        },
      };
    },
  };
}
