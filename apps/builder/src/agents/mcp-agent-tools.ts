import { jsonSchema, type ToolSet, tool } from "ai";
import type { McpToolInfo, McpToolSource, McpToolset } from "../ports/tool-ports.ts";
import type { AgentTool } from "./contract.ts";

type McpDefinition = Extract<AgentTool, { type: "mcp" }>;
type ToolOutput = Record<string, unknown>;

/** Providers accept tool names of letters, digits, `_` and `-`, at most 64 long (OpenAI's bound). */
const MAX_TOOL_NAME = 64;
/** A bound for a call made without the turn's signal (the pool's own call timeout is shorter). */
const MAX_CALL_MS = 10 * 60_000;

/** A server opened for a turn, or why it could not be. */
export type OpenedMcpServer = { toolset: McpToolset } | { unavailable: string };

/**
 * Opens the MCP server of an agent's tool entry (its tools listed, or the last listing). Turns open
 * all their servers at once, so one slow server does not add up with another. Never throws.
 *
 * @example const opened = await openMcpServer(definition, { source, workspaceId, signal });
 */
export async function openMcpServer(
  definition: McpDefinition,
  context: { source: McpToolSource | undefined; workspaceId: string; signal: AbortSignal },
): Promise<OpenedMcpServer> {
  if (!context.source) return { unavailable: "MCP tools are not available on this server." };
  try {
    const toolset = await context.source.open({
      workspaceId: context.workspaceId,
      serverId: definition.server_id,
      signal: context.signal,
    });
    if (toolset) return { toolset };
    return {
      unavailable: `The MCP server ${definition.server_id} no longer exists in this workspace; remove it from the agent's tools.`,
    };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Adds an opened MCP server's tools to an agent's tool set: all it lists, or the chosen ones with
 * their fixed arguments hidden from the model and their descriptions overridden. A server that
 * cannot be listed still offers the tools it listed last (or the chosen names), whose calls then
 * tell the model why they failed; a server that is gone offers one tool that says so.
 *
 * @example addMcpTools(tools, definition, await openMcpServer(definition, context), validatedSchema);
 */
export function addMcpTools(
  tools: ToolSet,
  definition: McpDefinition,
  server: OpenedMcpServer,
  validated: (schema: Record<string, unknown>) => ReturnType<typeof jsonSchema<Record<string, unknown>>>,
): void {
  const prefix = definition.prefix ?? "";
  if ("unavailable" in server) {
    tools[uniqueName(tools, `${prefix}mcp_unavailable`)] = failingTool(server.unavailable);
    return;
  }
  const { toolset } = server;
  const listed = new Map(toolset.tools.map((info) => [info.name, info]));
  const chosen: { info: McpToolInfo; description?: string | undefined; fixed: Record<string, unknown> }[] =
    definition.tools
      ? definition.tools.map((pick) => ({
          info: listed.get(pick.name) ?? {
            name: pick.name,
            description: "",
            inputSchema: { type: "object" },
          },
          description: pick.description,
          fixed: pick.fixed_arguments ?? {},
        }))
      : toolset.tools.map((info) => ({ info, fixed: {} }));
  if (chosen.length === 0 && toolset.unavailable) {
    tools[uniqueName(tools, `${prefix}mcp_unavailable`)] = failingTool(toolset.unavailable);
    return;
  }
  const opened = toolset;
  for (const { info, description, fixed } of chosen) {
    const isMissing = !listed.has(info.name);
    const name = uniqueName(tools, `${prefix}${info.name}`);
    tools[name] = tool({
      description:
        description ||
        info.description ||
        info.title ||
        `The ${info.name} tool of the MCP server ${opened.serverName}.`,
      inputSchema: validated(modelSchema(info.inputSchema, fixed)),
      execute: async (input, { abortSignal }): Promise<ToolOutput> => {
        if (isMissing && !opened.unavailable) {
          return {
            error: `The MCP server "${opened.serverName}" has no tool ${info.name} any more; the agent's tool list needs updating.`,
          };
        }
        try {
          const outcome = await opened.call(
            info.name,
            { ...input, ...fixed },
            abortSignal ?? AbortSignal.timeout(MAX_CALL_MS),
          );
          if (outcome.isError) return { error: outcome.text || `${info.name} reported an error.` };
          return outcome.structured === undefined
            ? { result: outcome.text }
            : { result: outcome.text, structured: outcome.structured };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return { error: message };
        }
      },
    });
  }
}

/** The tool's schema without the fixed parameters: the model neither sees nor fills them. */
function modelSchema(
  schema: Record<string, unknown>,
  fixed: Record<string, unknown>,
): Record<string, unknown> {
  const fixedNames = Object.keys(fixed);
  if (fixedNames.length === 0) return schema;
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const key of fixedNames) delete properties[key];
  const required = Array.isArray(schema.required)
    ? (schema.required as unknown[]).filter((key) => typeof key === "string" && !fixedNames.includes(key))
    : undefined;
  return { ...schema, properties, ...(required ? { required } : {}) };
}

function uniqueName(tools: ToolSet, wanted: string): string {
  const base = wanted.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_TOOL_NAME) || "mcp_tool";
  if (!(base in tools)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${base.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`;
    if (!(candidate in tools)) return candidate;
  }
}

function failingTool(message: string) {
  return tool({
    description: "An MCP server this agent uses cannot be used right now. Call it to learn why.",
    inputSchema: jsonSchema<Record<string, unknown>>({ type: "object", properties: {} }),
    execute: async (): Promise<ToolOutput> => ({ error: message }),
  });
}
