import type { Logger } from "@app/http";
import { withSpan } from "@app/observability";
import { type Language, type Sandbox, SandboxBusyError, type SandboxSession } from "@app/sandbox";
import { NodeExecutionError, type NodeLogs } from "@app/workflow";
import { chargeSandboxRun, type MeterDeps } from "../billing/meter.ts";
import { nodeLogs } from "./node-logs.ts";

/** Who asked for a run: it names the span, the usage record and the log line. */
export type SandboxRunSource = "workflow_code" | "agent_tool";

export interface MeteredRunRequest {
  workspaceId: string;
  language: Language;
  code: string;
  input: unknown;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface MeteredRunOutput {
  output: Record<string, unknown>;
  stdout: string;
  stderr: string;
  /** The sandbox cut stdout and stderr at its output limit. */
  truncated: boolean;
  durationMs: number;
  /** What it printed, as a run record keeps it (`nodeLogs`). */
  logs: NodeLogs;
}

type MeteredDeps = MeterDeps & { logger: Pick<Logger, "warn"> };

/**
 * One run of user code on the shared sandbox, as workflows and agents both see it: in a span, its
 * time metered to the workspace (failed runs too; the run's own time, not its wait), and every
 * failure a `NodeExecutionError` whose code says what happened: `sandbox_busy` when the pool or the
 * workspace's queue is full, else the sandbox's kind (`timeout`, `memory`, `output_limit`, `runtime`,
 * `compile`, …) with the user's line and what the program printed. A host without the sandbox or
 * the language still throws the sandbox's own error.
 *
 * @example const output = await runMetered(sandbox, deps, { workspaceId, language: "python", code, input: {} }, "agent_tool");
 */
export async function runMetered(
  runner: Pick<Sandbox, "run"> | SandboxSession,
  deps: MeteredDeps,
  { workspaceId, language, code, input, timeoutMs, signal }: MeteredRunRequest,
  source: SandboxRunSource,
): Promise<MeteredRunOutput> {
  let result: Awaited<ReturnType<Sandbox["run"]>>;
  try {
    result = await withSpan(
      "sandbox.run",
      { "sandbox.language": language, "workspace.id": workspaceId, "sandbox.source": source },
      () => runner.run({ workspaceId, language, code, input, timeoutMs, signal }),
    );
  } catch (error) {
    if (!(error instanceof SandboxBusyError)) throw error;
    // Expected under load, so not an "unhandled error"; frequent ones mean the pool is too small.
    deps.logger.warn(
      { workspace_id: workspaceId, waited_ms: error.waitedMs, source },
      "sandbox capacity refusal",
    );
    throw new NodeExecutionError(error.code, error.message);
  }
  await chargeSandboxRun(deps, { workspaceId, durationMs: result.durationMs, language, source });
  const logs = nodeLogs(result);
  if (result.error || !result.output) {
    const error = result.error;
    const where = error?.line ? ` (line ${error.line})` : "";
    // What it printed before failing is often the only clue: kept with the failure.
    throw new NodeExecutionError(
      error?.kind ?? "code_failed",
      `${error?.message ?? "The program failed."}${where}`,
      { logs },
    );
  }
  return {
    output: result.output,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.truncated,
    durationMs: result.durationMs,
    logs,
  };
}

/**
 * The workflow Code node's view of the sandbox (`CodeCapability` of workflows/capabilities.ts): a
 * failed program fails the node with the code `runMetered` gives it; the nodes of one run share a
 * session.
 *
 * @example workflowCapabilities: { code: sandboxCodeCapability(sandbox, deps) }
 */
export function sandboxCodeCapability(sandbox: Sandbox, deps: MeteredDeps) {
  return {
    run: (request: MeteredRunRequest) => runMetered(sandbox, deps, request, "workflow_code"),
    openRun: (workspaceId: string) => {
      const session = sandbox.session(workspaceId);
      return {
        run: (request: MeteredRunRequest) => runMetered(session, deps, request, "workflow_code"),
        close: () => session.close(),
      };
    },
  };
}

/**
 * Agents' code tools on the sandbox (`CodeRunner` of ports/tool-ports.ts): a failure, `sandbox_busy`
 * included, comes back as `error` ("<code>: <message>") for the tool to hand the model, with what
 * the program printed.
 *
 * @example agentTools: { code: sandboxCodeRunner(sandbox, deps) }
 */
export function sandboxCodeRunner(sandbox: Pick<Sandbox, "run">, deps: MeteredDeps) {
  return {
    async runCode(request: MeteredRunRequest) {
      try {
        const { output, stdout, stderr } = await runMetered(sandbox, deps, request, "agent_tool");
        return { output, stdout, stderr };
      } catch (error) {
        if (!(error instanceof NodeExecutionError)) throw error;
        const logs = error.logs ?? { stdout: "", stderr: "" };
        return {
          output: null,
          stdout: logs.stdout,
          stderr: logs.stderr,
          error: `${error.code}: ${error.message}`,
        };
      }
    },
  };
}
