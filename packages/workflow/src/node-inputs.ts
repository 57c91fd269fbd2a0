import type { ResolvedCase } from "./condition.ts";
import type {
  CodeData,
  EndData,
  HttpData,
  LlmData,
  NodeOfType,
  NodeType,
  ToolData,
  WorkflowNode,
} from "./schema.ts";
import {
  type ResolveOptions,
  resolveTemplates,
  resolveTemplateText,
  type TemplateScope,
} from "./template.ts";

/**
 * Which `data` fields of each node type hold templates. `text` fields (prompts, URLs, headers) always
 * resolve to strings; the others keep the referenced value's type. Everything else, notably a code
 * node's `code`, is passed through untouched.
 */
export const TEMPLATE_FIELDS: { readonly [T in NodeType]: readonly { key: string; isText: boolean }[] } = {
  start: [],
  end: [{ key: "outputs", isText: false }],
  llm: [
    { key: "system", isText: true },
    { key: "prompt", isText: true },
  ],
  code: [{ key: "inputs", isText: false }],
  http: [
    { key: "method", isText: true },
    { key: "url", isText: true },
    { key: "headers", isText: true },
    { key: "query", isText: true },
    { key: "auth", isText: true },
    { key: "body", isText: false },
  ],
  condition: [{ key: "cases", isText: false }],
  tool: [{ key: "args", isText: false }],
};

/**
 * A node's `data` with its templates resolved: what executors receive as `inputs`. The start node's
 * inputs are the run's inputs as supplied.
 */
export interface NodeInputsByType {
  start: Record<string, unknown>;
  end: Omit<EndData, "outputs"> & { outputs: { name: string; value: unknown }[] };
  llm: LlmData;
  code: Omit<CodeData, "inputs"> & { inputs: { name: string; value: unknown }[] };
  http: HttpData;
  condition: { title?: string; cases: ResolvedCase[] };
  tool: ToolData;
}

/**
 * Resolves the template fields of a node's data against the outputs of the nodes that ran.
 *
 * @example resolveNodeInputs(llmNode, { start: { q: "hi" } }).prompt // "Answer: hi"
 */
export function resolveNodeInputs<T extends Exclude<NodeType, "start">>(
  node: NodeOfType<T>,
  scope: TemplateScope,
  options: ResolveOptions = {},
): NodeInputsByType[T] {
  const known: WorkflowNode = node;
  const data: Record<string, unknown> = { ...known.data };
  for (const field of TEMPLATE_FIELDS[known.type]) {
    const value = data[field.key];
    if (value === undefined) continue;
    data[field.key] = field.isText
      ? resolveText(value, scope, options)
      : resolveTemplates(value, scope, options);
  }
  // The schema types every template field as a string or unknown JSON, and resolution only replaces
  // strings inside them, so the result has the declared shape.
  return data as unknown as NodeInputsByType[T];
}

function resolveText(value: unknown, scope: TemplateScope, options: ResolveOptions): unknown {
  if (typeof value === "string") return resolveTemplateText(value, scope, options);
  if (Array.isArray(value)) return value.map((item) => resolveText(item, scope, options));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveText(item, scope, options);
    return out;
  }
  return value;
}
