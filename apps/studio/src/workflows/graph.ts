import type { Edge, Node } from "@xyflow/react";
import { CODE_TEMPLATES } from "../editor/languages.ts";

export type NodeType = "start" | "end" | "llm" | "code" | "http" | "condition" | "tool";

export const NODE_TYPES: { type: NodeType; label: string; hint: string }[] = [
  { type: "start", label: "Start", hint: "The run's inputs" },
  { type: "llm", label: "LLM", hint: "Ask a model" },
  { type: "code", label: "Code", hint: "Python, JavaScript, Go or Rust" },
  { type: "http", label: "HTTP", hint: "Call a URL" },
  { type: "condition", label: "Condition", hint: "Branch on values" },
  { type: "tool", label: "Tool", hint: "Built-in tools" },
  { type: "end", label: "End", hint: "The run's outputs" },
];

/** A node as the API stores it. */
export interface ApiNode {
  id: string;
  type: NodeType;
  position: { x: number; y: number };
  data: Record<string, unknown>;
  on_error?: "fail" | "continue" | "branch";
  default_output?: Record<string, unknown>;
  timeout_ms?: number;
  retry?: RetryPolicy;
  /** HTTP and Tool nodes: the run waits for a person to approve the request first. */
  requires_approval?: boolean;
  approval_timeout_s?: number;
  on_timeout?: "reject" | "fail";
}

/** A node's `retry`: attempts in all, and the wait between them. */
export interface RetryPolicy {
  max_attempts: number;
  backoff?: "fixed" | "exponential";
  initial_ms?: number;
  max_ms?: number;
}

/** The handle of a node's error branch (`on_error: "branch"`). */
export const ERROR_HANDLE = "error";

export interface ApiEdge {
  id: string;
  source: string;
  target: string;
  source_handle?: string | null;
}

export interface ApiGraph {
  nodes: ApiNode[];
  edges: ApiEdge[];
}

/** What a React Flow node carries: the API node's data plus the run and validation state shown on it. */
export type EditorNodeData = {
  apiType: NodeType;
  config: Record<string, unknown>;
  extra: Pick<
    ApiNode,
    | "on_error"
    | "default_output"
    | "timeout_ms"
    | "retry"
    | "requires_approval"
    | "approval_timeout_s"
    | "on_timeout"
  >;
  issues?: string[];
  runStatus?: "running" | "waiting" | "succeeded" | "failed" | "skipped";
};

export type EditorNode = Node<EditorNodeData, "step">;

export function defaultData(type: NodeType): Record<string, unknown> {
  switch (type) {
    case "start":
      return { inputs: [{ name: "question", type: "string", required: true }] };
    case "end":
      return { outputs: [{ name: "result", value: "" }] };
    case "llm":
      return { provider: "openai", model: "gpt-4o-mini", system: "", prompt: "" };
    case "code":
      return {
        language: "python",
        code: CODE_TEMPLATES.python,
        inputs: [{ name: "value", value: "" }],
        outputs: [{ name: "result", type: "string" }],
      };
    case "http":
      return { method: "GET", url: "https://example.com" };
    case "condition":
      return {
        cases: [{ id: "case_1", logic: "and", conditions: [{ left: "", operator: "eq", right: "" }] }],
      };
    case "tool":
      return { tool: "current_time", args: {} };
  }
}

export function toEditor(graph: ApiGraph): { nodes: EditorNode[]; edges: Edge[] } {
  return {
    nodes: graph.nodes.map((node) => ({
      id: node.id,
      type: "step",
      position: node.position,
      data: {
        apiType: node.type,
        config: node.data,
        extra: {
          ...(node.on_error ? { on_error: node.on_error } : {}),
          ...(node.default_output ? { default_output: node.default_output } : {}),
          ...(node.timeout_ms ? { timeout_ms: node.timeout_ms } : {}),
          ...(node.retry ? { retry: node.retry } : {}),
          ...(node.requires_approval ? { requires_approval: node.requires_approval } : {}),
          ...(node.approval_timeout_s ? { approval_timeout_s: node.approval_timeout_s } : {}),
          ...(node.on_timeout ? { on_timeout: node.on_timeout } : {}),
        },
      },
    })),
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.source_handle ? { sourceHandle: edge.source_handle } : {}),
    })),
  };
}

export function toApi(nodes: EditorNode[], edges: Edge[]): ApiGraph {
  return {
    nodes: nodes.map((node) => ({
      id: node.id,
      type: node.data.apiType,
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      data: node.data.config,
      ...node.data.extra,
    })),
    edges: edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      ...(edge.sourceHandle ? { source_handle: edge.sourceHandle } : {}),
    })),
  };
}

/** A node id not yet used in the graph: `llm_1`, `llm_2`, … */
export function nextNodeId(type: NodeType, nodes: { id: string }[]): string {
  const taken = new Set(nodes.map((node) => node.id));
  if (type === "start" && !taken.has("start")) return "start";
  for (let i = 1; ; i++) if (!taken.has(`${type}_${i}`)) return `${type}_${i}`;
}

/** The fields a node outputs, for the variable picker. */
export function outputsOf(node: EditorNode, tools: Record<string, string[]>): string[] {
  const own = ownOutputsOf(node, tools);
  const onError = node.data.extra.on_error;
  // A node that fails under continue or branch passes on `error: { code, message }`.
  return onError === "continue" || onError === "branch" ? [...own, "error.code", "error.message"] : own;
}

function ownOutputsOf(node: EditorNode, tools: Record<string, string[]>): string[] {
  const config = node.data.config;
  switch (node.data.apiType) {
    case "start":
      return ((config.inputs as { name: string }[] | undefined) ?? []).map((input) => input.name);
    case "llm":
      return config.json_schema ? ["text", "json", "usage"] : ["text", "usage"];
    case "code":
      return ((config.outputs as { name: string }[] | undefined) ?? []).map((output) => output.name);
    case "http":
      return ["status", "headers", "body", "json"];
    case "condition":
      return ["matched_case"];
    case "tool":
      return tools[String(config.tool)] ?? ["result"];
    case "end":
      return [];
  }
}

/** Every node the given one can read from: its ancestors along edges. */
export function upstreamOf(nodeId: string, edges: Edge[]): Set<string> {
  const parents = new Map<string, string[]>();
  for (const edge of edges) parents.set(edge.target, [...(parents.get(edge.target) ?? []), edge.source]);
  const seen = new Set<string>();
  const stack = [...(parents.get(nodeId) ?? [])];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    if (seen.has(current)) continue;
    seen.add(current);
    stack.push(...(parents.get(current) ?? []));
  }
  return seen;
}

/**
 * The template variables node `nodeId` can use: each output of each node upstream of it.
 * @example variablesFor("end", nodes, edges, {}) // ["{{start.question}}", "{{llm_1.text}}", "{{llm_1.usage}}"]
 */
export function variablesFor(
  nodeId: string,
  nodes: EditorNode[],
  edges: Edge[],
  tools: Record<string, string[]>,
): string[] {
  const upstream = upstreamOf(nodeId, edges);
  return nodes
    .filter((node) => upstream.has(node.id))
    .flatMap((node) => outputsOf(node, tools).map((field) => `{{${node.id}.${field}}}`));
}

/** Layered left-to-right layout: each node one column right of its deepest parent. */
export function autoLayout(nodes: EditorNode[], edges: Edge[]): EditorNode[] {
  const depth = new Map<string, number>();
  const incoming = new Map<string, string[]>();
  for (const edge of edges) incoming.set(edge.target, [...(incoming.get(edge.target) ?? []), edge.source]);
  const visit = (id: string, trail: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (trail.has(id)) return 0;
    trail.add(id);
    const parents = incoming.get(id) ?? [];
    const value = parents.length === 0 ? 0 : Math.max(...parents.map((parent) => visit(parent, trail))) + 1;
    trail.delete(id);
    depth.set(id, value);
    return value;
  };
  for (const node of nodes) visit(node.id, new Set());
  const rows = new Map<number, number>();
  return nodes.map((node) => {
    const column = depth.get(node.id) ?? 0;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return { ...node, position: { x: column * 280, y: row * 140 } };
  });
}
