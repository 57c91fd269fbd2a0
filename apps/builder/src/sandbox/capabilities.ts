import { withSpan } from "@app/observability";
import type { Sandbox } from "@app/sandbox";
import { NodeExecutionError } from "@app/workflow";
import { chargeSandboxRun, type MeterDeps } from "../billing/meter.ts";
import type { CodeCapability } from "../workflows/capabilities.ts";

/**
 * The workflow Code node's view of the sandbox: a program that fails (runtime error, compile error,
 * timeout, bad output) fails the node with the sandbox's kind as its code and the user's line. Every
 * run's time is metered, failed ones too.
 *
 * @example workflowCapabilities: { code: sandboxCodeCapability(sandbox, deps) }
 */
export function sandboxCodeCapability(sandbox: Sandbox, deps: MeterDeps): CodeCapability {
  return {
    async run({ workspaceId, language, code, input, signal }) {
      const result = await withSpan(
        "sandbox.run",
        { "sandbox.language": language, "workspace.id": workspaceId, "sandbox.source": "workflow_code" },
        () => sandbox.run({ language, code, input, signal }),
      );
      await chargeSandboxRun(deps, {
        workspaceId,
        durationMs: result.durationMs,
        language,
        source: "workflow_code",
      });
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
