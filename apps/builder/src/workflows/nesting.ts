import { NodeExecutionError } from "@app/workflow";

/**
 * Workflows call workflows (run_workflow), agents (run_agent) call workflows as tools: each call
 * nests one level deeper, and this bound keeps a cycle of them from recursing without end.
 */
export const MAX_NESTING_DEPTH = 3;

/**
 * Throws when a call at `depth` would nest deeper than allowed.
 *
 * @example checkNestingDepth(context.depth); // before starting a nested run
 */
export function checkNestingDepth(depth: number): void {
  if (depth >= MAX_NESTING_DEPTH) {
    throw new NodeExecutionError(
      "nesting_too_deep",
      `Workflows and agents can call each other at most ${MAX_NESTING_DEPTH} levels deep.`,
    );
  }
}
