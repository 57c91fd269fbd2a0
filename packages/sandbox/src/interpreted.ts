import {
  fitsIsolate,
  installNodeRuntime,
  isolateBinds,
  isolateCommand,
  isolatedVmBinding,
  javascript,
  pinnedNodeBinary,
} from "./languages/javascript.ts";
import type { InterpretedLanguage, LanguageContext, ToolchainProbe } from "./languages/types.ts";
import { type Language, type ProcessLimits, runLimits } from "./limits.ts";
import type { HeldRunners, RunnerKind, RunnerParking } from "./parking.ts";
import { ResidentRunner } from "./resident.ts";
import { type RunResult, toRunResult } from "./result.ts";
import { type ChosenLimits, fitsWarmLimits } from "./run-request.ts";
import type { ProcessSpec, StartProcess } from "./sandboxed-process.ts";
import type { SandboxStats } from "./types.ts";
import type { WarmPool } from "./warm-pool.ts";

/**
 * The resident runner of an interpreted language: its runner script, bound read-only with the
 * runners at /sandbox.
 *
 * @example const spec = interpreterSpec(python, context, runLimits("python", chosen));
 */
export function interpreterSpec(
  definition: InterpretedLanguage,
  context: LanguageContext,
  limits: ProcessLimits,
): ProcessSpec {
  return {
    command: definition.command(limits),
    limits,
    env: definition.env(limits),
    readOnlyBinds: [[context.assetsDir, "/sandbox"], ...(definition.runtimeBinds?.(context) ?? [])],
  };
}

function isolateSpec(context: LanguageContext, limits: ProcessLimits): ProcessSpec {
  // Each isolate reserves a JIT code range of its own (512 MiB, writable, never touched) on top of
  // the runner's, and RLIMIT_DATA and RLIMIT_AS count reservations. A disposed isolate is torn down
  // on another thread, so the next node's isolate may reserve its range before the last one's is
  // returned: room for three. The node's memory is held by its isolate's heap limit (V8 counts
  // ArrayBuffers in it too) and by cgroup v2 memory.max where delegated; these rlimits are the backstop.
  const extra = 3 * 512 * 1024 * 1024;
  return {
    command: isolateCommand(limits),
    limits: {
      ...limits,
      dataBytes: limits.dataBytes + extra,
      addressSpaceBytes: limits.addressSpaceBytes + extra,
    },
    env: javascript.env(limits),
    readOnlyBinds: [[context.assetsDir, "/sandbox"], ...isolateBinds(context)],
  };
}

/**
 * Installs the pinned Node.js (and isolated-vm's native module, where it loads) into the cache
 * directory and records them in the context; answers why JavaScript cannot run when that fails.
 *
 * @example const refusal = installJavaScriptRuntime(context, logger); if (refusal) toolchains.set("javascript", refusal);
 */
export function installJavaScriptRuntime(
  context: LanguageContext,
  logger: { warn(details: object, message: string): void } | undefined,
): ToolchainProbe | undefined {
  try {
    context.nodeRuntime = installNodeRuntime(context.cacheDir, pinnedNodeBinary());
    const binding = isolatedVmBinding();
    if (binding) context.isolateBinding = installNodeRuntime(context.cacheDir, binding, "isolated-vm.node");
    else
      logger?.warn(
        {},
        "isolated-vm has no native module for this platform: every JavaScript node gets a process of its own",
      );
    return undefined;
  } catch (error) {
    return {
      isAvailable: false,
      reason: `the pinned Node.js could not be installed for the sandbox: ${(error as Error).message}`,
    };
  }
}

/** Which resident runner a node goes to. */
function runnerKind(context: LanguageContext, language: Language, code: string): RunnerKind {
  if (language !== "javascript" || !context.isolateBinding || !fitsIsolate(code)) return language;
  return "javascript-isolate";
}

export interface InterpretedDeps {
  context: LanguageContext;
  start: StartProcess;
  warm: ReadonlyMap<Language, WarmPool>;
  parking: RunnerParking;
  stats: Pick<SandboxStats, "reused" | "warmStarts" | "coldStarts">;
}

/**
 * Runs one node of Python or JavaScript on a resident runner: the session's, the workspace's parked
 * one, a warm one or a new one, in that order; afterwards the runner is held, parked or killed.
 *
 * @example await runInterpreted(deps, { definition: python, code, request: JSON.stringify({ code, input }), chosen, workspaceId: "wsp_1", held: undefined });
 */
export async function runInterpreted(
  deps: InterpretedDeps,
  run: {
    definition: InterpretedLanguage;
    code: string;
    request: string;
    chosen: ChosenLimits;
    workspaceId: string;
    held: HeldRunners | undefined;
  },
): Promise<RunResult> {
  const { context, parking, stats } = deps;
  const { definition, chosen, workspaceId, held } = run;
  const { language } = definition;
  const limits = runLimits(language, chosen);
  const isDefault = fitsWarmLimits(chosen);
  const kind = runnerKind(context, language, run.code);
  let runner = isDefault ? parking.takeHeld(held, kind) : undefined;
  if (runner) stats.reused++;
  if (!runner && isDefault && kind !== "javascript") {
    runner = parking.unpark(kind, workspaceId);
    if (runner) stats.reused++;
  }
  if (!runner && kind === "javascript-isolate") {
    // Started on demand, never ahead: it belongs to this workspace from its first node on.
    stats.coldStarts++;
    runner = new ResidentRunner(deps.start(isolateSpec(context, limits)), limits);
  }
  if (!runner) {
    const warm = isDefault ? deps.warm.get(language)?.take() : undefined;
    if (warm) stats.warmStarts++;
    else stats.coldStarts++;
    runner = new ResidentRunner(warm ?? deps.start(interpreterSpec(definition, context, limits)), limits);
  }
  const outcome = await runner.execute(run.request, chosen.timeoutMs, chosen.signal);
  parking.release(kind, runner, workspaceId, isDefault ? held : undefined, isDefault);
  return toRunResult(outcome, { timeoutMs: chosen.timeoutMs, durationMs: outcome.durationMs });
}
