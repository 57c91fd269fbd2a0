import { useQuery } from "@tanstack/react-query";
import { api, type Page } from "../api/client.ts";

/** A tool as an MCP server lists it; `input_schema` is its arguments' JSON Schema. */
export interface McpTool {
  name: string;
  title: string | null;
  description: string;
  input_schema: { type?: string; properties?: Record<string, JsonSchemaProperty>; required?: string[] };
}

export interface JsonSchemaProperty {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
}

export interface McpServer {
  id: string;
  name: string;
  url: string;
  transport: "auto" | "streamable_http" | "sse";
  auth: "none" | "bearer" | "headers" | "oauth";
  header_names: string[];
  secret_hint: string | null;
  /** As the server listed them the last time it was reached; null before the first test. */
  tools: McpTool[] | null;
  tools_checked_at: string | null;
  created_at: string;
}

export interface McpServerCheck {
  ok: true;
  transport: "streamable_http" | "sse";
  server: { name: string; version: string } | null;
  tools: McpTool[];
  latency_ms: number;
}

/** The workspace's MCP servers, for settings, the agent editor's tool picker and the Tool node. */
export function useMcpServers() {
  return useQuery({
    queryKey: ["mcp-servers"],
    queryFn: () => api<Page<McpServer>>("/api/mcp-servers?limit=100"),
  });
}

/** The parameters of a tool, in schema order, with whether the server requires them. */
export function toolParameters(
  tool: McpTool,
): { name: string; property: JsonSchemaProperty; isRequired: boolean }[] {
  const required = new Set(tool.input_schema.required ?? []);
  return Object.entries(tool.input_schema.properties ?? {}).map(([name, property]) => ({
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
