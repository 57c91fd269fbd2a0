import { availableParallelism } from "node:os";
import { join } from "node:path";
import { defaultCacheDir, installAssets } from "./assets.ts";
import { BinaryCache } from "./binary-cache.ts";
import { createRunCgroup, detectLimitMechanism, type LimitMechanism } from "./cgroup.ts";
import { CompiledLanguages, removeDeadSlots } from "./compiled.ts";
import { LanguageUnavailableError, SandboxUnavailableError } from "./errors.ts";
import { ensurePrivateDir, type HostTools, probeHost, sandboxStartFailure } from "./host.ts";
import {
  type InterpretedDeps,
  installJavaScriptRuntime,
  interpreterSpec,
  runInterpreted,
} from "./interpreted.ts";
import { go } from "./languages/go.ts";
import { javascript } from "./languages/javascript.ts";
import { python } from "./languages/python.ts";
import { rust } from "./languages/rust.ts";
import type { LanguageContext, LanguageDefinition, ToolchainProbe } from "./languages/types.ts";
import { Limiter } from "./limiter.ts";
import { LANGUAGES, type Language, OUTPUT_LIMIT_BYTES, RUN_LIMIT_BOUNDS, runLimits } from "./limits.ts";
import { reapOrphans } from "./orphans.ts";
import { type HeldRunners, RunnerParking } from "./parking.ts";
import type { RunResult } from "./result.ts";
import { checkRequest, type RunRequest } from "./run-request.ts";
import { type ProcessSpec, SandboxedProcess, type SandboxSpec } from "./sandboxed-process.ts";
import { seccompFilter } from "./seccomp.ts";
import type { RuntimesReport, SandboxOptions, SandboxSession, SandboxStats } from "./types.ts";
import { UidPool } from "./uid-pool.ts";
import { WarmPool } from "./warm-pool.ts";

const DEFINITIONS: Record<Language, LanguageDefinition> = { python, javascript, go, rust };
const UID_RANGE = 1024;

/**
 * Runs untrusted code in Python, JavaScript, Go and Rust under bubblewrap, seccomp, a per-run uid
 * and resource limits. See the package README for the isolation model.
 *
 * @example const sandbox = await Sandbox.create({ concurrency: 2 }); await sandbox.run({ language: "go", code, input: {} });
 */
export class Sandbox {
  readonly #options: Required<
    Pick<
      SandboxOptions,
      | "concurrency"
      | "perWorkspaceConcurrency"
      | "contentionWindowMs"
      | "queueTimeoutMs"
      | "warmPerLanguage"
      | "compileTimeoutMs"
    >
  >;
  readonly #logger: SandboxOptions["logger"];
  readonly #limiter: Limiter;
  readonly #stats = { runs: 0, reused: 0, warmStarts: 0, coldStarts: 0, compiles: 0, cacheHits: 0 };
  readonly #parking: RunnerParking;
  readonly #live = new Set<SandboxedProcess>();
  readonly #warm = new Map<Language, WarmPool>();
  #tools: HostTools | undefined;
  #unavailableReason: string | null = null;
  #seccomp: Buffer = Buffer.alloc(0);
  #mechanism: LimitMechanism = { kind: "rlimit", detail: "not probed" };
  #toolchains = new Map<Language, ToolchainProbe>();
  #context: LanguageContext | undefined;
  #compiled: CompiledLanguages | undefined;
  #interpreted: InterpretedDeps | undefined;
  #uids: UidPool;
  #compileUid: number;
  #isClosed = false;

  private constructor(options: SandboxOptions) {
    const concurrency = options.concurrency ?? availableParallelism();
    const perWorkspaceConcurrency = Math.min(
      concurrency,
      options.perWorkspaceConcurrency ?? Math.max(1, Math.ceil(concurrency / 2)),
    );
    this.#options = {
      concurrency,
      perWorkspaceConcurrency,
      contentionWindowMs: options.contentionWindowMs ?? 5_000,
      queueTimeoutMs: options.queueTimeoutMs ?? 30_000,
      warmPerLanguage: options.warmPerLanguage ?? concurrency,
      compileTimeoutMs: options.compileTimeoutMs ?? 30_000,
    };
    this.#logger = options.logger;
    this.#parking = new RunnerParking(this.#options);
    this.#limiter = new Limiter({
      concurrency,
      perTenant: perWorkspaceConcurrency,
      contentionWindowMs: this.#options.contentionWindowMs,
      queueTimeoutMs: this.#options.queueTimeoutMs,
      queuePerTenant: options.queuePerWorkspace ?? 64,
    });
    const uidBase = options.uidBase ?? 1_500_000_000;
    this.#compileUid = uidBase;
    this.#uids = new UidPool(uidBase + 1, UID_RANGE);
  }

  /**
   * Probes the host (bwrap, util-linux, cgroups, toolchains), installs the runners, checks that a
   * sandbox really starts here and fills the warm pools. A host that cannot isolate still gives a
   * Sandbox: it reports why in `runtimes()` and refuses every run.
   *
   * @example const sandbox = await Sandbox.create(); const result = await sandbox.run({ language: "python", code, input: {} });
   */
  static async create(options: SandboxOptions = {}): Promise<Sandbox> {
    const sandbox = new Sandbox(options);
    await sandbox.#init(options);
    return sandbox;
  }

  async #init(options: SandboxOptions): Promise<void> {
    const probes = Promise.all(
      LANGUAGES.map(async (language) => [language, await DEFINITIONS[language].probe()] as const),
    );
    const host = await probeHost({ bwrapPath: options.bwrapPath });
    this.#toolchains = new Map(await probes);
    if (!host.isReady) {
      this.#unavailableReason = host.reason;
      return;
    }
    this.#tools = host.tools;
    if (host.tools.isRoot) {
      const reaped = reapOrphans(this.#compileUid, this.#compileUid + UID_RANGE);
      if (reaped.length > 0)
        this.#logger?.warn({ pids: reaped }, "killed sandboxes left by a previous service");
    }
    this.#seccomp = seccompFilter(host.tools.arch);
    this.#mechanism = detectLimitMechanism(options.cgroup ?? "auto");
    const cacheDir = options.cacheDir ?? defaultCacheDir();
    ensurePrivateDir(cacheDir, 0o711);
    const binDir = join(cacheDir, "bin");
    ensurePrivateDir(binDir, 0o711);
    const assets = installAssets(cacheDir);
    this.#context = {
      tools: host.tools,
      assetsDir: assets.dir,
      cacheDir,
      compileUid: host.tools.isRoot ? this.#compileUid : undefined,
    };
    this.#compiled = new CompiledLanguages({
      context: this.#context,
      binaries: new BinaryCache(binDir, options.binaryCacheBytes ?? 256 * 1024 * 1024),
      assetsHash: assets.hash,
      compileTimeoutMs: this.#options.compileTimeoutMs,
      toolchains: this.#toolchains,
      start: (spec, role) => this.#start(spec, role),
      warm: this.#warm,
      stats: this.#stats,
    });
    this.#interpreted = {
      context: this.#context,
      start: (spec) => this.#start(spec),
      warm: this.#warm,
      parking: this.#parking,
      stats: this.#stats,
    };
    if (this.#toolchains.get("javascript")?.isAvailable) {
      const refusal = installJavaScriptRuntime(this.#context, this.#logger);
      if (refusal) this.#toolchains.set("javascript", refusal);
    }

    this.#unavailableReason = await sandboxStartFailure(() =>
      this.#start({
        command: ["/usr/bin/true"],
        limits: runLimits("python", { timeoutMs: 10_000, memoryMb: RUN_LIMIT_BOUNDS.memoryMb.default }),
        env: {},
      }),
    );
    if (this.#unavailableReason !== null) return;

    const slots = join(cacheDir, "slots");
    ensurePrivateDir(slots, 0o711);
    removeDeadSlots(slots);
    const context = this.#context;
    const compiled = this.#compiled;
    for (const language of LANGUAGES) {
      if (!this.#toolchains.get(language)?.isAvailable || this.#options.warmPerLanguage <= 0) continue;
      const definition = DEFINITIONS[language];
      const limits = runLimits(language, {
        timeoutMs: RUN_LIMIT_BOUNDS.timeoutMs.default,
        memoryMb: RUN_LIMIT_BOUNDS.memoryMb.default,
      });
      const start =
        definition.kind === "interpreted"
          ? () => this.#start(interpreterSpec(definition, context, limits))
          : () => compiled.startBinaryRunner(definition, limits);
      const pool = new WarmPool(start, this.#options.warmPerLanguage, (error) =>
        this.#logger?.warn({ language, err: error }, "sandbox warm runners keep failing"),
      );
      this.#warm.set(language, pool);
      if (options.isWarmedOnCreate ?? true) pool.refill();
    }
  }

  /**
   * Runs `code`'s main on `input` once. Everything the code does wrong comes back as a result with
   * `error` set; only host problems throw (SandboxUnavailableError, LanguageUnavailableError,
   * SandboxBusyError after the queue timeout).
   *
   * @example await sandbox.run({ language: "python", code: "def main(i):\n    return {'n': i['n'] + 1}", input: { n: 1 } })
   */
  run(request: RunRequest): Promise<RunResult> {
    return this.#run(request, undefined);
  }

  async #run(request: RunRequest, held: HeldRunners | undefined): Promise<RunResult> {
    if (this.#isClosed) throw new SandboxUnavailableError("The sandbox is shut down.");
    const checked = checkRequest(request);
    if ("refusal" in checked) return checked.refusal;
    const interpreted = this.#interpreted;
    const compiled = this.#compiled;
    if (this.#unavailableReason !== null || !interpreted || !compiled) {
      throw new SandboxUnavailableError(`The code sandbox is unavailable: ${this.#unavailableReason}`);
    }
    const { language, code, input } = request;
    const toolchain = this.#toolchains.get(language);
    if (!toolchain?.isAvailable) {
      throw new LanguageUnavailableError(
        `${language} is not available on this host: ${toolchain?.reason ?? "not probed"}`,
      );
    }

    const { chosen, inputJson } = checked;
    const workspaceId = request.workspaceId ?? "";
    const release = await this.#limiter.acquire(workspaceId, chosen.signal);
    try {
      this.#stats.runs++;
      const definition = DEFINITIONS[language];
      const result =
        definition.kind === "interpreted"
          ? await runInterpreted(interpreted, {
              definition,
              code,
              request: JSON.stringify({ code, input }),
              chosen,
              workspaceId,
              held,
            })
          : await compiled.run(definition, toolchain.version, code, inputJson, chosen);
      chosen.signal?.throwIfAborted();
      return result;
    } finally {
      release();
    }
  }

  /**
   * A session for the code nodes of one workflow run: per language one resident sandbox runs the
   * run's nodes in turn, each in a fresh process (Python, forked from a zygote that never runs user
   * code) or a fresh V8 context (JavaScript, in a Node.js process that lives for this run only).
   * Every limit holds per node; a node that hits one takes its process down and the next node starts
   * a new one. Close it when the run ends.
   *
   * @example const session = sandbox.session("wsp_1"); try { await session.run({ language: "javascript", code, input }); } finally { session.close(); }
   */
  session(workspaceId: string): SandboxSession {
    const held: HeldRunners = new Map();
    let isClosed = false;
    return {
      run: (request) => {
        if (isClosed) return Promise.reject(new SandboxUnavailableError("The sandbox session is closed."));
        return this.#run({ ...request, workspaceId }, held);
      },
      close: () => {
        isClosed = true;
        this.#parking.closeSession(held, workspaceId);
      },
    };
  }

  /**
   * Languages, versions and the isolation and limit mechanisms in force on this host.
   *
   * @example sandbox.runtimes().limits.mechanism // "rlimit" on a cgroup v1 host
   */
  runtimes(): RuntimesReport {
    return {
      isAvailable: this.#unavailableReason === null && !this.#isClosed,
      reason: this.#isClosed ? "shut down" : this.#unavailableReason,
      isolation: {
        bubblewrap: this.#tools?.bwrapVersion ?? null,
        seccomp: this.#tools !== undefined,
        uids: this.#tools?.isRoot ? "per_run" : "service",
      },
      limits: {
        mechanism: this.#mechanism.kind,
        detail: this.#mechanism.detail,
        defaultTimeoutMs: RUN_LIMIT_BOUNDS.timeoutMs.default,
        defaultMemoryMb: RUN_LIMIT_BOUNDS.memoryMb.default,
        outputBytes: OUTPUT_LIMIT_BYTES,
      },
      concurrency: this.#options.concurrency,
      perWorkspaceConcurrency: this.#options.perWorkspaceConcurrency,
      contentionWindowMs: this.#options.contentionWindowMs,
      queueTimeoutMs: this.#options.queueTimeoutMs,
      languages: LANGUAGES.map((language) => {
        const probe = this.#toolchains.get(language);
        return {
          language,
          kind: DEFINITIONS[language].kind,
          isAvailable: (probe?.isAvailable ?? false) && this.#unavailableReason === null,
          version: probe?.isAvailable ? probe.version : null,
          reason: probe && !probe.isAvailable ? probe.reason : this.#unavailableReason,
        };
      }),
    };
  }

  /**
   * Fills the warm pools (if `create` left them empty) and does the one-time work of the compiled
   * languages now (Rust's serde_json build, Go's warm build cache) instead of on their first run.
   * Failures are logged; the first run reports them again.
   *
   * @example void sandbox.warmUp(); // once the service listens
   */
  async warmUp(languages: readonly Language[] = LANGUAGES): Promise<void> {
    for (const language of languages) this.#warm.get(language)?.refill();
    await Promise.all(
      languages.map(async (language) => {
        const definition = DEFINITIONS[language];
        if (definition.kind !== "compiled" || !this.#toolchains.get(language)?.isAvailable) return;
        if (this.#unavailableReason !== null) return;
        try {
          await this.#compiledLanguages().prepare(definition);
        } catch (error) {
          this.#logger?.warn({ language, err: error }, "sandbox toolchain preparation failed");
        }
      }),
    );
  }

  /**
   * The cached binary of Go or Rust `code` (compiled first if needed), so a benchmark can run the very
   * same binary without the sandbox. Throws on a compile error.
   *
   * @example const path = await sandbox.compiledBinary("go", code);
   */
  async compiledBinary(language: "go" | "rust", code: string): Promise<string> {
    const definition = DEFINITIONS[language];
    const toolchain = this.#toolchains.get(language);
    if (definition.kind !== "compiled" || !toolchain?.isAvailable)
      throw new LanguageUnavailableError(language);
    const languages = this.#compiledLanguages();
    await languages.prepare(definition);
    const compiled = await languages.compile(definition, toolchain.version, code);
    if (!compiled.isCompiled) throw new Error(compiled.result.error?.message ?? "compile failed");
    return compiled.path;
  }

  stats(): SandboxStats {
    return {
      ...this.#stats,
      warm: Object.fromEntries([...this.#warm].map(([language, pool]) => [language, pool.size])),
      active: this.#limiter.active,
      borrowed: this.#limiter.borrowed,
      queued: this.#limiter.queued,
      maxActive: this.#limiter.maxActive,
      held: this.#parking.held,
      parked: this.#parking.parked,
    };
  }

  /** Stops the warm runners and every running sandbox, and refuses further runs. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#limiter.close();
    for (const pool of this.#warm.values()) pool.close();
    this.#parking.close();
    const closing = [...this.#live].map((child) => {
      child.kill();
      return child.closed;
    });
    await Promise.all(closing);
  }

  #compiledLanguages(): CompiledLanguages {
    if (!this.#compiled) throw new SandboxUnavailableError(this.#unavailableReason ?? "not initialised");
    return this.#compiled;
  }

  #start(spec: ProcessSpec, role: "run" | "compile" = "run"): SandboxedProcess {
    const tools = this.#tools;
    if (!tools) throw new SandboxUnavailableError(this.#unavailableReason ?? "no sandbox tools");
    const uid = !tools.isRoot ? undefined : role === "compile" ? this.#compileUid : this.#uids.acquire();
    const releaseUid = () => {
      if (uid !== undefined && role === "run") this.#uids.release(uid);
    };
    let cgroup: SandboxSpec["cgroup"];
    let child: SandboxedProcess;
    try {
      if (this.#mechanism.kind === "cgroup_v2") {
        cgroup = createRunCgroup(this.#mechanism.parent, spec.limits);
      }
      child = SandboxedProcess.start(
        tools,
        this.#seccomp,
        { ...spec, uid, cgroup },
        {
          memoryByRlimit: this.#mechanism.kind === "rlimit",
        },
      );
    } catch (error) {
      releaseUid();
      void cgroup?.remove();
      throw error;
    }
    this.#live.add(child);
    void child.closed.then(async () => {
      this.#live.delete(child);
      releaseUid();
      await cgroup?.remove();
    });
    return child;
  }
}

/**
 * Creates the sandbox; see `Sandbox.create`.
 *
 * @example const sandbox = await createSandbox({ concurrency: 2 }); await sandbox.close();
 */
export function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return Sandbox.create(options);
}
