import { formatPath, type GraphIssue } from "./graph-issue.ts";
import { type WorkflowGraph, workflowGraphSchema } from "./schema.ts";
import { type ValidateOptions, validateGraph } from "./validate-graph.ts";

export type ParseGraphResult = { ok: true; graph: WorkflowGraph } | { ok: false; issues: GraphIssue[] };

/**
 * Checks untrusted JSON (an import, a stored graph of an older version) against the schema and then the
 * structural rules, naming node and edge ids in schema problems too.
 *
 * @example const parsed = parseWorkflowGraph(JSON.parse(body)); if (!parsed.ok) return parsed.issues;
 */
export function parseWorkflowGraph(input: unknown, options: ValidateOptions = {}): ParseGraphResult {
  const parsed = workflowGraphSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        ...ownerOf(input, issue.path),
        path: formatPath(issue.path),
        code: "invalid_schema",
        message: issue.message,
      })),
    };
  }
  const issues = validateGraph(parsed.data, options);
  return issues.length === 0 ? { ok: true, graph: parsed.data } : { ok: false, issues };
}

function ownerOf(input: unknown, path: readonly PropertyKey[]): { node_id?: string; edge_id?: string } {
  const [list, position] = path;
  if ((list !== "nodes" && list !== "edges") || typeof position !== "number") return {};
  if (input === null || typeof input !== "object") return {};
  const items: unknown = (input as Record<string, unknown>)[list];
  if (!Array.isArray(items)) return {};
  const item: unknown = items[position];
  if (item === null || typeof item !== "object") return {};
  const id: unknown = (item as Record<string, unknown>).id;
  if (typeof id !== "string") return {};
  return list === "nodes" ? { node_id: id } : { edge_id: id };
}
