import { chargeSandboxRun, type MeterDeps } from "../billing/meter.ts";
import type { CodeLanguage, CodeRunner } from "./ports.ts";

/** The part of `@app/sandbox`'s `Sandbox` code tools use, stated here so agents do not own its lifecycle. */
export interface SandboxLike {
  run(request: {
    workspaceId: string;
    language: CodeLanguage;
    code: string;
    input: unknown;
    timeoutMs?: number;
  }): Promise<{
    output: Record<string, unknown> | null;
    stdout: string;
    stderr: string;
    durationMs: number;
    error: { kind: string; message: string } | null;
  }>;
}

/**
 * Code tools on the shared sandbox runner (the one code nodes and /api/sandbox/run use); every run's
 * time is metered to the workspace of the turn.
 *
 * @example agentTools: { code: sandboxCodeRunner(await createSandbox(), deps) }
 */
export function sandboxCodeRunner(sandbox: SandboxLike, deps: MeterDeps): CodeRunner {
  return {
    async runCode({ workspaceId, language, code, input, timeoutMs }) {
      const result = await sandbox.run({ workspaceId, language, code, input, timeoutMs });
      await chargeSandboxRun(deps, {
        workspaceId,
        durationMs: result.durationMs,
        language,
        source: "agent_tool",
      });
      return {
        output: result.output,
        stdout: result.stdout,
        stderr: result.stderr,
        ...(result.error ? { error: `${result.error.kind}: ${result.error.message}` } : {}),
      };
    },
  };
}
