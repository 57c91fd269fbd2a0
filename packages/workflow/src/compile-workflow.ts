import { type GraphIndex, indexGraph } from "./graph-index.ts";
import type { GraphIssue } from "./graph-issue.ts";
import type { NodeOfType, WorkflowGraph } from "./schema.ts";
import { type ValidateOptions, validateGraph } from "./validate-graph.ts";

/** A graph that passed `validateGraph`, with the lookups the engine needs; reusable across runs. */
export interface CompiledWorkflow {
  graph: WorkflowGraph;
  start: NodeOfType<"start">;
  index: GraphIndex;
}

/** Thrown by `compileWorkflow` for a graph that cannot run; `issues` name the nodes and edges at fault. */
export class WorkflowGraphError extends Error {
  override name = "WorkflowGraphError";
  readonly code = "invalid_graph";
  readonly issues: readonly GraphIssue[];

  constructor(issues: readonly GraphIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super(`The workflow graph is invalid: ${first?.message ?? "unknown problem"}${more}`);
    this.issues = issues;
  }
}

/**
 * Validates a graph once and prepares it for any number of runs.
 *
 * @example const workflow = compileWorkflow(graph); await runWorkflow({ workflow, runId, inputs, executors });
 */
export function compileWorkflow(graph: WorkflowGraph, options: ValidateOptions = {}): CompiledWorkflow {
  const issues = validateGraph(graph, options);
  if (issues.length > 0) throw new WorkflowGraphError(issues);
  const start = graph.nodes.find((node): node is NodeOfType<"start"> => node.type === "start");
  if (start === undefined) throw new WorkflowGraphError([]);
  return { graph, start, index: indexGraph(graph) };
}
