import { existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BinaryCache, binaryKey } from "./binary-cache.ts";
import { GO_WARM_UP_PROGRAM, goWarmUpMarker } from "./languages/go.ts";
import type { CompiledLanguage, LanguageContext, ToolchainProbe } from "./languages/types.ts";
import { BINARY_LIMIT_BYTES, compileLimits, type Language, type ProcessLimits, runLimits } from "./limits.ts";
import type { RunError, RunResult } from "./result.ts";
import { toRunResult } from "./result.ts";
import { type ChosenLimits, fitsWarmLimits, invalidInput } from "./run-request.ts";
import type { ProcessOutcome, SandboxedProcess, StartProcess } from "./sandboxed-process.ts";
import type { SandboxStats } from "./types.ts";
import type { WarmPool } from "./warm-pool.ts";

type CompileOutcome =
  | { isCompiled: true; path: string; durationMs: number }
  | { isCompiled: false; result: RunResult };

let slotCounter = 0;

/** Runs the process; an abort of the caller's signal kills it like a timeout would. */
async function runUntilAborted(runner: SandboxedProcess, input: string, chosen: ChosenLimits) {
  const onAbort = () => runner.kill();
  chosen.signal?.addEventListener("abort", onAbort, { once: true });
  if (chosen.signal?.aborted) runner.kill();
  try {
    return await runner.run(input, chosen.timeoutMs);
  } finally {
    chosen.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Removes the slot directories of a service that died (named <pid>-<n>); a live service's slots are left alone.
 *
 * @example removeDeadSlots(join(cacheDir, "slots"));
 */
export function removeDeadSlots(slots: string): void {
  for (const name of readdirSync(slots)) {
    const owner = Number(name.split("-")[0]);
    if (!existsSync(`/proc/${owner}`)) rmSync(join(slots, name), { recursive: true, force: true });
  }
}

export interface CompiledDeps {
  context: LanguageContext;
  binaries: BinaryCache;
  /** The runners' hash: a binary built against other wrappers is another binary. */
  assetsHash: string;
  compileTimeoutMs: number;
  toolchains: ReadonlyMap<Language, ToolchainProbe>;
  start: StartProcess;
  warm: ReadonlyMap<Language, WarmPool>;
  stats: Pick<SandboxStats, "warmStarts" | "coldStarts" | "compiles" | "cacheHits">;
}

/**
 * Go and Rust: the one-time preparation of each toolchain, compiles in a sandbox of their own into
 * the binary cache (the same code compiled once), and runs of a cached binary in a warm slot.
 *
 * @example const compiled = new CompiledLanguages(deps); await compiled.run(go, version, code, "{}", chosen);
 */
export class CompiledLanguages {
  readonly #deps: CompiledDeps;
  /** The slot directory of each warm binary runner. */
  readonly #slots = new Map<SandboxedProcess, string>();
  readonly #prepared = new Map<Language, Promise<void>>();
  readonly #compiling = new Map<string, Promise<CompileOutcome>>();

  constructor(deps: CompiledDeps) {
    this.#deps = deps;
  }

  /**
   * A warm runner for compiled code: a sandbox already set up around an empty slot directory,
   * waiting for a line on stdin. The host then hard-links the cached binary into the slot (bound
   * read-only, so only this one binary becomes visible inside) and the shell execs it, which leaves
   * bwrap's start-up cost out of the run, as the interpreters' warm pool does.
   */
  startBinaryRunner(definition: CompiledLanguage, limits: ProcessLimits): SandboxedProcess {
    slotCounter += 1;
    const slot = join(this.#deps.context.cacheDir, "slots", `${process.pid}-${slotCounter}`);
    mkdirSync(slot, { mode: 0o755 });
    let runner: SandboxedProcess;
    try {
      runner = this.#deps.start({
        // The shell sends the readiness byte; `read` fails on EOF, so a runner whose service died execs nothing.
        command: ["/bin/sh", "-c", "printf '\\n' >&3; read -r _ && exec /sandbox/bin/main"],
        limits,
        env: definition.runEnv(limits),
        readOnlyBinds: [[slot, "/sandbox/bin"]],
      });
    } catch (error) {
      rmSync(slot, { recursive: true, force: true });
      throw error;
    }
    this.#slots.set(runner, slot);
    void runner.closed.then(() => {
      this.#slots.delete(runner);
      rmSync(slot, { recursive: true, force: true });
    });
    return runner;
  }

  /** Compiles `code` (or finds its binary) and runs it on the input, in a warm slot when the limits allow. */
  async run(
    definition: CompiledLanguage,
    version: string,
    code: string,
    inputJson: string,
    chosen: ChosenLimits,
  ): Promise<RunResult> {
    const { stats } = this.#deps;
    await this.prepare(definition);
    // A compile is not stopped by one caller's abort: another run may be waiting for the same binary.
    const compiled = await this.compile(definition, version, code);
    if (!compiled.isCompiled) return compiled.result;
    chosen.signal?.throwIfAborted();
    const limits = runLimits(definition.language, chosen);
    const warm = fitsWarmLimits(chosen) ? this.#deps.warm.get(definition.language)?.take() : undefined;
    const slot = warm ? this.#slots.get(warm) : undefined;
    let outcome: ProcessOutcome;
    if (warm && slot) {
      stats.warmStarts++;
      // Same filesystem as the cache, so a hard link: no copy of the binary per run.
      linkSync(compiled.path, join(slot, "main"));
      outcome = await runUntilAborted(warm, `go\n${inputJson}`, chosen);
    } else {
      warm?.kill();
      stats.coldStarts++;
      const runner = this.#deps.start({
        command: ["/sandbox/main"],
        limits,
        env: definition.runEnv(limits),
        readOnlyBinds: [[compiled.path, "/sandbox/main"]],
      });
      outcome = await runUntilAborted(runner, inputJson, chosen);
    }
    const durationMs = Math.round((compiled.durationMs + outcome.durationMs) * 100) / 100;
    return toRunResult(outcome, { timeoutMs: chosen.timeoutMs, durationMs });
  }

  /** The toolchain's one-time work (prebuilt crates, Go's warm build cache), done once; a failure is retried by the next run. */
  prepare(definition: CompiledLanguage): Promise<void> {
    let preparing = this.#prepared.get(definition.language);
    if (!preparing) {
      preparing = this.#prepareOnce(definition).catch((error: unknown) => {
        // Let the next run try again (e.g. after the missing package was installed).
        this.#prepared.delete(definition.language);
        throw error;
      });
      this.#prepared.set(definition.language, preparing);
    }
    return preparing;
  }

  async #prepareOnce(definition: CompiledLanguage): Promise<void> {
    const { context } = this.#deps;
    await definition.prepare(context);
    if (definition.language === "go") {
      const toolchain = this.#deps.toolchains.get("go");
      const version = toolchain?.isAvailable ? toolchain.version : "unknown";
      const marker = goWarmUpMarker(context, version);
      if (existsSync(marker)) return;
      // Fills the build cache with the standard packages, under the exact flags user builds use;
      // past the binary cache, since a cached warm-up binary says nothing about this build cache.
      const key = binaryKey([
        ...definition.cacheKeyParts(version),
        this.#deps.assetsHash,
        GO_WARM_UP_PROGRAM,
      ]);
      const warmed = await this.#compileUncached(definition, key, GO_WARM_UP_PROGRAM);
      if (!warmed.isCompiled) throw new Error(`the Go warm-up build failed: ${warmed.result.error?.message}`);
      writeFileSync(marker, "");
    }
  }

  /** The cached binary of `code`, or the compile error as a run's result. */
  compile(definition: CompiledLanguage, version: string, code: string): Promise<CompileOutcome> {
    const refused = definition.refuseSource?.(code);
    if (refused) {
      const error: RunError = {
        kind: "compile",
        message: refused.message,
        ...(refused.line === undefined ? {} : { line: refused.line }),
      };
      const result = { ...invalidInput(""), stderr: refused.stderr, error };
      return Promise.resolve({ isCompiled: false, result });
    }
    const key = binaryKey([...definition.cacheKeyParts(version), this.#deps.assetsHash, code]);
    const cached = this.#deps.binaries.get(key);
    if (cached) {
      this.#deps.stats.cacheHits++;
      return Promise.resolve({ isCompiled: true, path: cached, durationMs: 0 });
    }
    // The same code submitted twice at once is compiled once.
    let compiling = this.#compiling.get(key);
    if (!compiling) {
      compiling = this.#compileUncached(definition, key, code).finally(() => this.#compiling.delete(key));
      this.#compiling.set(key, compiling);
    }
    return compiling;
  }

  async #compileUncached(definition: CompiledLanguage, key: string, code: string): Promise<CompileOutcome> {
    const { context, binaries } = this.#deps;
    this.#deps.stats.compiles++;
    const script = definition.compileScript(context);
    const limits = compileLimits(this.#deps.compileTimeoutMs);
    const outcome = await this.#deps
      .start(
        {
          command: script.command,
          limits,
          env: script.env,
          readOnlyBinds: [[context.assetsDir, "/sandbox"], ...script.readOnlyBinds],
          writableBinds: script.writableBinds,
          resultLimitBytes: BINARY_LIMIT_BYTES,
        },
        "compile",
      )
      .run(definition.compileInput(code));
    const base = {
      output: null,
      stdout: outcome.stdout,
      exitCode: outcome.exitCode,
      durationMs: outcome.durationMs,
      timedOut: outcome.isTimedOut,
      truncated: outcome.isOutputTruncated,
    };
    if (outcome.isTimedOut) {
      const error: RunError = {
        kind: "compile",
        message: `Compilation took longer than ${limits.wallMs} ms.`,
      };
      return { isCompiled: false, result: { ...base, stderr: outcome.stderr, error } };
    }
    if (outcome.exitCode !== 0 || !outcome.result) {
      const failure = outcome.isResultTooLarge
        ? { message: "The compiled program is larger than 64 MiB.", stderr: outcome.stderr }
        : definition.parseCompileError(outcome.stderr, code);
      const error: RunError = {
        kind: "compile",
        message: failure.message,
        ...(failure.line === undefined ? {} : { line: failure.line }),
      };
      return { isCompiled: false, result: { ...base, stderr: failure.stderr, error } };
    }
    const path = binaries.put(key, outcome.result);
    return { isCompiled: true, path, durationMs: outcome.durationMs };
  }
}
