import { type ExecutorContext, NodeExecutionError, type ValueType } from "@app/workflow";
import type { CodeCapability } from "../capabilities.ts";

/**
 * The Code node: its inputs become the `inputs` object of the code's `main`, and each declared output
 * must come back with its declared type. What the code printed is kept with the node's record.
 */
export function codeNodeExecutor(code: Pick<CodeCapability, "run"> | undefined, workspaceId: string) {
  return async ({ inputs, signal }: ExecutorContext<"code">) => {
    if (!code)
      throw new NodeExecutionError(
        "sandbox_unavailable",
        "The code sandbox is not available on this server.",
      );
    const input = Object.fromEntries(inputs.inputs.map((entry) => [entry.name, entry.value]));
    const result = await code.run({
      workspaceId,
      language: inputs.language,
      code: inputs.code,
      input,
      signal,
    });
    const { logs } = result;
    const outputs: Record<string, unknown> = {};
    for (const declared of inputs.outputs) {
      const value = result.output[declared.name];
      if (!hasType(value, declared.type)) {
        throw new NodeExecutionError(
          "output_type_mismatch",
          `Output ${declared.name} must be ${declared.type}, got ${describe(value)}.`,
          { logs },
        );
      }
      outputs[declared.name] = value;
    }
    return { outputs, logs };
  };
}

function hasType(value: unknown, type: ValueType): boolean {
  if (type === "array") return Array.isArray(value);
  if (type === "object") return value !== null && typeof value === "object" && !Array.isArray(value);
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === type;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
