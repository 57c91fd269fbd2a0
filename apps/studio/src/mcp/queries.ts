import { useQuery } from "@tanstack/react-query";
import { allPages } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { McpServer, McpServerCheck, McpTool } from "../api/schema.gen.ts";

export type { McpServer, McpServerCheck, McpTool };

/** What the studio reads of a tool's `input_schema` to offer its arguments. */
export interface JsonSchemaProperty {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
}

/** The workspace's MCP servers, for settings, the agent editor's tool picker and the Tool node. */
export function useMcpServers() {
  return useQuery({
    queryKey: ["mcp-servers"],
    queryFn: () => allPages<McpServer>("/api/mcp-servers"),
  });
}

/** The settings screen's list of MCP servers, a page at a time. */
export function useMcpServerList() {
  return usePagedList<McpServer>(["mcp-servers", "pages"], "/api/mcp-servers");
}

/** The parameters of a tool, in schema order, with whether the server requires them. */
export function toolParameters(
  tool: McpTool,
): { name: string; property: JsonSchemaProperty; isRequired: boolean }[] {
  // The API passes the MCP server's JSON Schema on as it came (typed only as an object).
  const schema = tool.input_schema as {
    properties?: Record<string, JsonSchemaProperty>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    property,
    isRequired: required.has(name),
  }));
}

/**
 * A typed value from what was typed for a parameter: numbers, booleans, objects and arrays are read
 * as JSON when they parse, anything else stays the text (a template, or a string).
 */
export function parameterValue(text: string, property: JsonSchemaProperty): unknown {
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  if (type === "string" || type === undefined) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The inverse of `parameterValue`, for showing a stored value in a text box. */
export function parameterText(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
