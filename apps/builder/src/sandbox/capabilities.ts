import type { Sandbox } from "@app/sandbox";
import { NodeExecutionError } from "@app/workflow";
import type { CodeCapability } from "../workflows/capabilities.ts";

/**
 * The workflow Code node's view of the sandbox: a program that fails (runtime error, compile error,
 * timeout, bad output) fails the node with the sandbox's kind as its code and the user's line.
 *
 * @example workflowCapabilities: { code: sandboxCodeCapability(sandbox) }
 */
export function sandboxCodeCapability(sandbox: Sandbox): CodeCapability {
  return {
    async run({ language, code, input, signal }) {
      const result = await sandbox.run({ language, code, input, signal });
      if (result.error || !result.output) {
        const error = result.error;
        const where = error?.line ? ` (line ${error.line})` : "";
        throw new NodeExecutionError(
          error?.kind ?? "code_failed",
          `${error?.message ?? "The program failed."}${where}`,
        );
      }
      return {
        output: result.output,
        stdout: result.stdout,
        stderr: result.stderr,
        durationMs: result.durationMs,
      };
    },
  };
}
