import type { KnownMcpTool, McpServerRow } from "./schema.ts";

export function toMcpToolJson(tool: KnownMcpTool) {
  return {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description,
    input_schema: tool.inputSchema,
  };
}

/** The public view of a connection: never its secrets, only header names and a token hint. */
export function toMcpServerJson(row: McpServerRow) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    transport: row.transport,
    auth: row.authType,
    header_names: row.headerNames,
    secret_hint: row.secretHint,
    tools: row.tools?.map(toMcpToolJson) ?? null,
    tools_checked_at: row.toolsCheckedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
