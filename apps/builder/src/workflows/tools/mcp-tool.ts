import { ApiError } from "@app/http";
import { NodeExecutionError } from "@app/workflow";
import type { McpToolSource } from "../../ports/tool-ports.ts";
import { defineTool, z } from "./registry.ts";

/**
 * `mcp_tool`: one tool of one of the workspace's MCP servers, with arguments the node resolves
 * (templates or fixed values). A tool that reports an error fails the node with `mcp_tool_error`
 * (or gives its `default_output` under `on_error: "continue"`); a server that cannot be reached
 * fails it with the connection's error code (`mcp_server_unreachable`, `mcp_server_timeout`,
 * `mcp_server_rejected_credentials`).
 */
export function mcpTool(source: McpToolSource | undefined) {
  return defineTool({
    name: "mcp_tool",
    description: "Calls a tool of one of the workspace's MCP servers and returns its result.",
    outputs: ["result", "text", "structured"],
    args: z.object({
      server_id: z.string().min(1).max(64),
      tool: z.string().min(1).max(128),
      arguments: z.record(z.string(), z.unknown()).default({}),
    }),
    run: async (args, { workspaceId, signal }) => {
      if (!source)
        throw new NodeExecutionError("mcp_unavailable", "MCP tools are not available on this server.");
      const toolset = await source.open({ workspaceId, serverId: args.server_id, signal });
      if (!toolset)
        throw new NodeExecutionError(
          "mcp_server_not_found",
          `No MCP server ${args.server_id} in this workspace.`,
        );
      let outcome: Awaited<ReturnType<typeof toolset.call>>;
      try {
        outcome = await toolset.call(args.tool, args.arguments, signal);
      } catch (error) {
        if (error instanceof ApiError) throw new NodeExecutionError(error.code, error.message);
        throw error;
      }
      if (outcome.isError) {
        throw new NodeExecutionError(
          "mcp_tool_error",
          `${args.tool} on MCP server "${toolset.serverName}" reported an error: ${outcome.text}`,
        );
      }
      return {
        result: outcome.structured ?? outcome.text,
        text: outcome.text,
        structured: outcome.structured ?? null,
      };
    },
  });
}
