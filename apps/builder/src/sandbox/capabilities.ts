import type { Logger } from "@app/http";
import { withSpan } from "@app/observability";
import { type Sandbox, SandboxBusyError, type SandboxSession } from "@app/sandbox";
import { NodeExecutionError } from "@app/workflow";
import { chargeSandboxRun, type MeterDeps } from "../billing/meter.ts";
import type { CodeCapability, CodeRunOutput, CodeRunRequest } from "../workflows/capabilities.ts";
import { nodeLogs } from "../workflows/executors/node-logs.ts";

/**
 * The workflow Code node's view of the sandbox: a program that fails (runtime error, compile error,
 * timeout, bad output) fails the node with the sandbox's kind as its code and the user's line, and
 * with what it printed. Every
 * node's time is metered, failed ones too, as before sessions: the node's own run time, not its wait.
 *
 * @example workflowCapabilities: { code: sandboxCodeCapability(sandbox, deps) }
 */
export function sandboxCodeCapability(
  sandbox: Sandbox,
  deps: MeterDeps & { logger: Pick<Logger, "warn"> },
): CodeCapability {
  const runOn = async (
    runner: Pick<Sandbox, "run"> | SandboxSession,
    { workspaceId, language, code, input, signal }: CodeRunRequest,
  ): Promise<CodeRunOutput> => {
    let result: Awaited<ReturnType<Sandbox["run"]>>;
    try {
      result = await withSpan(
        "sandbox.run",
        { "sandbox.language": language, "workspace.id": workspaceId, "sandbox.source": "workflow_code" },
        () => runner.run({ workspaceId, language, code, input, signal }),
      );
    } catch (error) {
      if (!(error instanceof SandboxBusyError)) throw error;
      deps.logger.warn(
        { workspace_id: workspaceId, waited_ms: error.waitedMs, source: "workflow_code" },
        "sandbox capacity refusal",
      );
      throw new NodeExecutionError(error.code, error.message);
    }
    await chargeSandboxRun(deps, {
      workspaceId,
      durationMs: result.durationMs,
      language,
      source: "workflow_code",
    });
    if (result.error || !result.output) {
      const error = result.error;
      const where = error?.line ? ` (line ${error.line})` : "";
      // What it printed before failing is often the only clue: kept with the failed node's record.
      throw new NodeExecutionError(
        error?.kind ?? "code_failed",
        `${error?.message ?? "The program failed."}${where}`,
        { logs: nodeLogs(result) },
      );
    }
    return {
      output: result.output,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.truncated,
      durationMs: result.durationMs,
    };
  };
  return {
    run: (request) => runOn(sandbox, request),
    openRun: (workspaceId) => {
      const session = sandbox.session(workspaceId);
      return { run: (request) => runOn(session, request), close: () => session.close() };
    },
  };
}
