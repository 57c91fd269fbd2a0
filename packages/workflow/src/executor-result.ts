import type { ExecutorResult } from "./executors.ts";
import { NodeExecutionError } from "./node-error.ts";
import type { WorkflowNode } from "./schema.ts";
import { describeType, matchesValueType } from "./start-inputs.ts";

/**
 * Checks what an executor returned: outputs must be an object, usage (if any) must count tokens, and a
 * code node must return each declared output with its declared type (so downstream templates can rely
 * on them).
 *
 * @example checkExecutorResult(codeNode, { outputs: { total: "3" } }) // throws output_type_mismatch
 */
export function checkExecutorResult(node: WorkflowNode, result: unknown): ExecutorResult {
  const outputs = (result as { outputs?: unknown } | null | undefined)?.outputs;
  if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs)) {
    throw new NodeExecutionError(
      "invalid_outputs",
      `The ${node.type} executor of ${node.id} must resolve to { outputs: {…} }, got ${describeType(outputs)}.`,
    );
  }
  const usage = (result as { usage?: unknown }).usage;
  if (usage !== undefined && !isTokenUsage(usage)) {
    throw new NodeExecutionError(
      "invalid_outputs",
      `The ${node.type} executor of ${node.id} returned usage without a numeric total_tokens.`,
    );
  }
  if (node.type === "code") {
    for (const declared of node.data.outputs) {
      const value: unknown = (outputs as Record<string, unknown>)[declared.name];
      if (value === undefined) {
        throw new NodeExecutionError(
          "missing_output",
          `Code node ${node.id} did not return output ${declared.name}.`,
        );
      }
      if (!matchesValueType(value, declared.type)) {
        throw new NodeExecutionError(
          "output_type_mismatch",
          `Output ${declared.name} of ${node.id} must be ${declared.type}, got ${describeType(value)}.`,
        );
      }
    }
  }
  return result as ExecutorResult;
}

function isTokenUsage(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const { input_tokens, output_tokens, total_tokens } = value as Record<string, unknown>;
  const isCount = (count: unknown) => typeof count === "number" && Number.isFinite(count);
  return (
    isCount(total_tokens) &&
    [input_tokens, output_tokens].every((count) => count === undefined || isCount(count))
  );
}
