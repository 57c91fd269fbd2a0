import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BinaryCache, binaryKey } from "./binary-cache.ts";
import { createRunCgroup, detectLimitMechanism, type LimitMechanism } from "./cgroup.ts";
import { ensurePrivateDir, type HostTools, probeHost } from "./host.ts";
import { GO_WARM_UP_PROGRAM, go, goWarmUpMarker } from "./languages/go.ts";
import {
  fitsIsolate,
  installNodeRuntime,
  isolateBinds,
  isolateCommand,
  isolatedVmBinding,
  javascript,
  pinnedNodeBinary,
} from "./languages/javascript.ts";
import { python } from "./languages/python.ts";
import { rust } from "./languages/rust.ts";
import type {
  CompiledLanguage,
  LanguageContext,
  LanguageDefinition,
  ToolchainProbe,
} from "./languages/types.ts";
import { Limiter } from "./limiter.ts";
import {
  BINARY_LIMIT_BYTES,
  compileLimits,
  LANGUAGES,
  type Language,
  OUTPUT_LIMIT_BYTES,
  RUN_LIMIT_BOUNDS,
  runLimits,
} from "./limits.ts";
import { reapOrphans } from "./orphans.ts";
import { ResidentRunner } from "./resident.ts";
import { type RunError, type RunResult, toRunResult } from "./result.ts";
import { type ProcessOutcome, SandboxedProcess, type SandboxSpec } from "./sandboxed-process.ts";
import { seccompFilter } from "./seccomp.ts";
import { UidPool } from "./uid-pool.ts";
import { WarmPool } from "./warm-pool.ts";

export interface SandboxOptions {
  /** Toolchain caches and compiled binaries. Default: /var/cache/app-sandbox as root, else $TMPDIR/app-sandbox-<uid>. */
  cacheDir?: string;
  /** Runs at once across all workspaces (the pool); more wait in a queue. Default: the number of cores. */
  concurrency?: number;
  /** Runs at once of one workspace while others want the sandbox. Default: half the pool, at least 1, so one workspace never holds all of it (from 2 slots on). */
  perWorkspaceConcurrency?: number;
  /**
   * A workspace runs on the whole pool, beyond `perWorkspaceConcurrency`, once no other workspace has
   * held or waited for a slot for this long; 0 holds every workspace to its share always. Another
   * workspace within its share starts at once beside the borrowed runs (the pool runs over its size
   * until they end) rather than waiting for one of them, which may take its whole timeout. Default 5 s:
   * far longer than the gap between the runs of a workspace in use, short enough that a
   * single-workspace install has its whole machine back seconds after another's last run.
   */
  contentionWindowMs?: number;
  /** How long a run may wait for a slot before SandboxBusyError. Default 30 s. */
  queueTimeoutMs?: number;
  /** Runs one workspace may have waiting; one more is refused at once with SandboxBusyError. Default 64. */
  queuePerWorkspace?: number;
  /** Pre-started runners per language (interpreters, or sandboxes waiting for a cached binary). Default: `concurrency`; 0 turns the pools off. */
  warmPerLanguage?: number;
  /**
   * Whether `create` fills the warm pools (default). A service passes false and calls `warmUp()` once it
   * is listening: starting the runners (several processes) competes for the CPU of its start.
   */
  isWarmedOnCreate?: boolean;
  /** Wall-time limit of a compile. Default 30 s. */
  compileTimeoutMs?: number;
  /** Size cap of the compiled-binary cache, evicted least-recently-used. Default 256 MiB. */
  binaryCacheBytes?: number;
  /** First uid of the range the sandbox runs code as (when the service is root). Default 1 500 000 000. */
  uidBase?: number;
  /** cgroup v2 use: detect ("auto"), never ("off"), or a delegated parent directory. */
  cgroup?: "auto" | "off" | { parent: string };
  /** Where bwrap is; only tests of a host without it need this. */
  bwrapPath?: string;
  logger?: { warn(details: object, message: string): void };
}

export interface RunRequest {
  /** Whose run this is: the pool is shared fairly between workspaces (quota, round robin). Runs without one share one queue. */
  workspaceId?: string | undefined;
  language: Language;
  code: string;
  /** The object handed to main; must be a JSON object. */
  input: unknown;
  timeoutMs?: number;
  memoryMb?: number;
  /** Aborting withdraws a queued run or stops a running one; `run` then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * The code nodes of one workflow run (see `Sandbox.session`): they share the run's sandbox processes
 * and are scheduled like any run of its workspace.
 */
export interface SandboxSession {
  /** Runs one node's code; the same contract as `Sandbox.run`. */
  run(request: Omit<RunRequest, "workspaceId">): Promise<RunResult>;
  /** Ends the session: its processes are killed (a Python zygote may be kept for the workspace's next run). */
  close(): void;
}

export interface LanguageRuntime {
  language: Language;
  kind: "interpreted" | "compiled";
  isAvailable: boolean;
  version: string | null;
  /** Why the language cannot run here, with what to install. */
  reason: string | null;
}

/** What `GET /api/sandbox/runtimes` reports. */
export interface RuntimesReport {
  isAvailable: boolean;
  reason: string | null;
  isolation: {
    bubblewrap: string | null;
    seccomp: boolean;
    /** "per_run": each run gets its own unprivileged uid; "service": the service is not root and runs code as itself. */
    uids: "per_run" | "service";
  };
  limits: {
    mechanism: LimitMechanism["kind"];
    detail: string;
    defaultTimeoutMs: number;
    defaultMemoryMb: number;
    outputBytes: number;
  };
  concurrency: number;
  perWorkspaceConcurrency: number;
  contentionWindowMs: number;
  queueTimeoutMs: number;
  languages: LanguageRuntime[];
}

export interface SandboxStats {
  /** Warm runners started and waiting, per language. */
  warm: Partial<Record<Language, number>>;
  runs: number;
  /** Runs on a resident runner a session or the workspace already had (no sandbox started for them). */
  reused: number;
  warmStarts: number;
  coldStarts: number;
  compiles: number;
  cacheHits: number;
  active: number;
  /** Of the active runs, those beyond their workspace's share (on slots idle otherwise). */
  borrowed: number;
  queued: number;
  maxActive: number;
  /** Idle resident runners kept by open sessions for their run's next node. */
  held: number;
  /** Idle Python zygotes and JavaScript isolate runners kept for their workspace's next run. */
  parked: number;
}

/** The host cannot isolate code (no bwrap, no namespaces); nothing runs unconfined instead. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/** The language's toolchain is missing on this host. */
export class LanguageUnavailableError extends Error {
  override name = "LanguageUnavailableError";
}

const DEFINITIONS: Record<Language, LanguageDefinition> = { python, javascript, go, rust };
const RUNNER_FILES = [
  "runner.py",
  "zygote.py",
  "runner.cjs",
  "isolate-runner.cjs",
  "protocol.cjs",
  "wrapper.go",
  "wrapper.rs",
] as const;
/**
 * The kinds of resident runner: one per interpreted language, and for JavaScript that fits an isolate
 * (no Node.js APIs, see `fitsIsolate`) a workspace's isolate runner, which runs each node in a new V8 isolate.
 */
type RunnerKind = Language | "javascript-isolate";
/** How long a workspace's idle Python zygote or JavaScript isolate runner is kept for its next run. */
const PARKED_IDLE_MS = 60_000;
const MAX_CODE_BYTES = 512 * 1024;
const MAX_INPUT_BYTES = 1024 * 1024;
const UID_RANGE = 1024;

function defaultCacheDir(): string {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? "/var/cache/app-sandbox" : join(tmpdir(), `app-sandbox-${uid}`);
}

/** Copies the runners into the cache directory (content-addressed), since the sandbox uids may not reach the repository. */
function installAssets(cacheDir: string): { dir: string; hash: string } {
  const source = fileURLToPath(new URL("./runners/", import.meta.url));
  const contents = RUNNER_FILES.map((name) => [name, readFileSync(join(source, name))] as const);
  const hash = createHash("sha256");
  for (const [name, bytes] of contents) hash.update(name).update(bytes);
  const digest = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `assets-${digest}`);
  if (existsSync(dir)) return { dir, hash: digest };
  const staging = `${dir}.staging-${randomBytes(4).toString("hex")}`;
  mkdirSync(staging, { mode: 0o755 });
  for (const [name, bytes] of contents) writeFileSync(join(staging, name), bytes, { mode: 0o644 });
  try {
    renameSync(staging, dir);
  } catch {
    // Another process installed the same assets first.
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir, hash: digest };
}

function invalidInput(message: string): RunResult {
  return {
    output: null,
    stdout: "",
    stderr: "",
    exitCode: null,
    durationMs: 0,
    timedOut: false,
    truncated: false,
    error: { kind: "invalid_input", message },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function checkLimit(
  name: string,
  value: number | undefined,
  bounds: { min: number; max: number; default: number },
) {
  const chosen = value ?? bounds.default;
  if (!Number.isInteger(chosen) || chosen < bounds.min || chosen > bounds.max) {
    return { error: `${name} must be an integer from ${bounds.min} to ${bounds.max}` };
  }
  return { value: chosen };
}

interface ChosenLimits {
  timeoutMs: number;
  memoryMb: number;
  signal: AbortSignal | undefined;
}

let slotCounter = 0;

/** Warm runners were started with the default limits: they fit any run that asks for no more. */
function fitsWarmLimits(chosen: ChosenLimits): boolean {
  return (
    chosen.memoryMb === RUN_LIMIT_BOUNDS.memoryMb.default &&
    chosen.timeoutMs <= RUN_LIMIT_BOUNDS.timeoutMs.default
  );
}

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

/** The idle resident runner a session keeps per kind between its nodes. */
type HeldRunners = Map<RunnerKind, ResidentRunner>;

type CompileOutcome =
  | { isCompiled: true; path: string; durationMs: number }
  | { isCompiled: false; result: RunResult };

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
  /**
   * Idle resident runners per kind and workspace (`${kind}:${workspaceId}`), newest last, for a later run
   * of the same workspace: Python zygotes never ran user code; isolate runners ran it only in isolates
   * they disposed of.
   */
  readonly #parked = new Map<string, { runner: ResidentRunner; timer: NodeJS.Timeout }[]>();
  /** Idle resident runners held by open sessions, across all sessions. */
  #heldBySessions = 0;
  /** The held runners of sessions already closed: a node that ends after its session does not refill them. */
  readonly #closedSessions = new WeakSet<HeldRunners>();
  readonly #live = new Set<SandboxedProcess>();
  readonly #warm = new Map<Language, WarmPool>();
  /** The slot directory of each warm binary runner. */
  readonly #slots = new Map<SandboxedProcess, string>();
  readonly #prepared = new Map<Language, Promise<void>>();
  readonly #compiling = new Map<string, Promise<CompileOutcome>>();
  #tools: HostTools | undefined;
  #unavailableReason: string | null = null;
  #seccomp: Buffer = Buffer.alloc(0);
  #mechanism: LimitMechanism = { kind: "rlimit", detail: "not probed" };
  #toolchains = new Map<Language, ToolchainProbe>();
  #context: LanguageContext | undefined;
  #assetsHash = "";
  #binaries: BinaryCache | undefined;
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
    this.#binaries = new BinaryCache(binDir, options.binaryCacheBytes ?? 256 * 1024 * 1024);
    const assets = installAssets(cacheDir);
    this.#assetsHash = assets.hash;
    this.#context = {
      tools: host.tools,
      assetsDir: assets.dir,
      cacheDir,
      compileUid: host.tools.isRoot ? this.#compileUid : undefined,
    };
    if (this.#toolchains.get("javascript")?.isAvailable) {
      try {
        this.#context.nodeRuntime = installNodeRuntime(cacheDir, pinnedNodeBinary());
        const binding = isolatedVmBinding();
        if (binding) this.#context.isolateBinding = installNodeRuntime(cacheDir, binding, "isolated-vm.node");
        else
          this.#logger?.warn(
            {},
            "isolated-vm has no native module for this platform: every JavaScript node gets a process of its own",
          );
      } catch (error) {
        this.#toolchains.set("javascript", {
          isAvailable: false,
          reason: `the pinned Node.js could not be installed for the sandbox: ${(error as Error).message}`,
        });
      }
    }

    let smoke: { exitCode: number | null; stderr: string };
    try {
      smoke = await this.#start({
        command: ["/usr/bin/true"],
        limits: runLimits("python", { timeoutMs: 10_000, memoryMb: RUN_LIMIT_BOUNDS.memoryMb.default }),
        env: {},
      }).run("");
    } catch (error) {
      // spawn itself failed, e.g. the uid cannot be switched to.
      smoke = { exitCode: null, stderr: (error as Error).message };
    }
    if (smoke.exitCode !== 0) {
      const detail = smoke.stderr.trim() || `exit ${smoke.exitCode}`;
      const hint = /EINVAL|EPERM|setuid|setgid/i.test(detail)
        ? "the sandbox uids are not usable here (in a rootless container, pass a uidBase inside the mapped range)"
        : "inside a container, allow user namespaces (e.g. an unconfined seccomp profile)";
      this.#unavailableReason = `bubblewrap could not create a sandbox on this host (${detail}); ${hint}`;
      return;
    }

    const slots = join(cacheDir, "slots");
    ensurePrivateDir(slots, 0o711);
    // Slots of a service that died (named <pid>-<n>); a live service's slots are left alone.
    for (const name of readdirSync(slots)) {
      const owner = Number(name.split("-")[0]);
      if (!existsSync(`/proc/${owner}`)) rmSync(join(slots, name), { recursive: true, force: true });
    }
    for (const language of LANGUAGES) {
      if (!this.#toolchains.get(language)?.isAvailable || this.#options.warmPerLanguage <= 0) continue;
      const definition = DEFINITIONS[language];
      const limits = runLimits(language, {
        timeoutMs: RUN_LIMIT_BOUNDS.timeoutMs.default,
        memoryMb: RUN_LIMIT_BOUNDS.memoryMb.default,
      });
      const start =
        definition.kind === "interpreted"
          ? () => this.#start(this.#interpreterSpec(language, limits))
          : () => this.#startBinaryRunner(definition, limits);
      const pool = new WarmPool(start, this.#options.warmPerLanguage, (error) =>
        this.#logger?.warn({ language, err: error }, "sandbox warm runners keep failing"),
      );
      this.#warm.set(language, pool);
      if (options.isWarmedOnCreate ?? true) pool.refill();
    }
  }

  /**
   * A warm runner for compiled code: a sandbox already set up around an empty slot directory,
   * waiting for a line on stdin. The host then hard-links the cached binary into the slot (bound
   * read-only, so only this one binary becomes visible inside) and the shell execs it, which leaves
   * bwrap's start-up cost out of the run, as the interpreters' warm pool does.
   */
  #startBinaryRunner(definition: CompiledLanguage, limits: ReturnType<typeof runLimits>): SandboxedProcess {
    const context = this.#context;
    if (!context) throw new SandboxUnavailableError(this.#unavailableReason ?? "not initialised");
    slotCounter += 1;
    const slot = join(context.cacheDir, "slots", `${process.pid}-${slotCounter}`);
    mkdirSync(slot, { mode: 0o755 });
    let runner: SandboxedProcess;
    try {
      runner = this.#start({
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
    const { language, code, input } = request;
    if (!LANGUAGES.includes(language)) return invalidInput(`language must be one of ${LANGUAGES.join(", ")}`);
    if (typeof code !== "string" || code.trim() === "")
      return invalidInput("code must be a non-empty string");
    if (Buffer.byteLength(code) > MAX_CODE_BYTES)
      return invalidInput(`code is larger than ${MAX_CODE_BYTES} bytes`);
    if (!isPlainObject(input)) return invalidInput("input must be a JSON object");
    let inputJson: string;
    try {
      inputJson = JSON.stringify(input);
    } catch (error) {
      return invalidInput(`input is not JSON: ${(error as Error).message}`);
    }
    if (Buffer.byteLength(inputJson) > MAX_INPUT_BYTES) return invalidInput("input is larger than 1 MiB");
    const timeout = checkLimit("timeout_ms", request.timeoutMs, RUN_LIMIT_BOUNDS.timeoutMs);
    if (timeout.error !== undefined) return invalidInput(timeout.error);
    const memory = checkLimit("memory_mb", request.memoryMb, RUN_LIMIT_BOUNDS.memoryMb);
    if (memory.error !== undefined) return invalidInput(memory.error);

    if (this.#unavailableReason !== null || !this.#context) {
      throw new SandboxUnavailableError(`The code sandbox is unavailable: ${this.#unavailableReason}`);
    }
    const toolchain = this.#toolchains.get(language);
    if (!toolchain?.isAvailable) {
      throw new LanguageUnavailableError(
        `${language} is not available on this host: ${toolchain?.reason ?? "not probed"}`,
      );
    }

    const { signal } = request;
    const workspaceId = request.workspaceId ?? "";
    const release = await this.#limiter.acquire(workspaceId, signal);
    try {
      this.#stats.runs++;
      const chosen = { timeoutMs: timeout.value, memoryMb: memory.value, signal };
      const definition = DEFINITIONS[language];
      const result =
        definition.kind === "interpreted"
          ? await this.#runInterpreted(
              language,
              code,
              JSON.stringify({ code, input }),
              chosen,
              workspaceId,
              held,
            )
          : await this.#runCompiled(definition, toolchain.version, code, inputJson, chosen);
      signal?.throwIfAborted();
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
        this.#closedSessions.add(held);
        for (const [language, runner] of held) {
          this.#heldBySessions--;
          this.#release(language, runner, workspaceId, undefined);
        }
        held.clear();
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
          await this.#prepare(definition);
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
    await this.#prepare(definition);
    const compiled = await this.#compile(definition, toolchain.version, code);
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
      held: this.#heldBySessions,
      parked: [...this.#parked.values()].reduce((sum, list) => sum + list.length, 0),
    };
  }

  /** Stops the warm runners and every running sandbox, and refuses further runs. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#limiter.close();
    for (const pool of this.#warm.values()) pool.close();
    for (const parked of this.#parked.values()) {
      for (const { runner, timer } of parked) {
        clearTimeout(timer);
        runner.kill();
      }
    }
    this.#parked.clear();
    const closing = [...this.#live].map((child) => {
      child.kill();
      return child.closed;
    });
    await Promise.all(closing);
  }

  #start(spec: Omit<SandboxSpec, "uid" | "cgroup">, role: "run" | "compile" = "run"): SandboxedProcess {
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

  #interpreterSpec(
    language: Language,
    limits: ReturnType<typeof runLimits>,
  ): Omit<SandboxSpec, "uid" | "cgroup"> {
    const definition = DEFINITIONS[language];
    if (definition.kind !== "interpreted" || !this.#context)
      throw new Error(`${language} is not interpreted`);
    return {
      command: definition.command(limits),
      limits,
      env: definition.env(limits),
      readOnlyBinds: [
        [this.#context.assetsDir, "/sandbox"],
        ...(definition.runtimeBinds?.(this.#context) ?? []),
      ],
    };
  }

  #isolateSpec(limits: ReturnType<typeof runLimits>): Omit<SandboxSpec, "uid" | "cgroup"> {
    if (!this.#context) throw new Error("not initialised");
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
      readOnlyBinds: [[this.#context.assetsDir, "/sandbox"], ...isolateBinds(this.#context)],
    };
  }

  /** Which resident runner a node goes to. */
  #runnerKind(language: Language, code: string): RunnerKind {
    if (language !== "javascript" || !this.#context?.isolateBinding || !fitsIsolate(code)) return language;
    return "javascript-isolate";
  }

  async #runInterpreted(
    language: Language,
    code: string,
    request: string,
    chosen: ChosenLimits,
    workspaceId: string,
    held: HeldRunners | undefined,
  ): Promise<RunResult> {
    const limits = runLimits(language, chosen);
    const isDefault = fitsWarmLimits(chosen);
    const kind = this.#runnerKind(language, code);
    let runner: ResidentRunner | undefined;
    const mine = isDefault ? held?.get(kind) : undefined;
    if (mine) {
      held?.delete(kind);
      this.#heldBySessions--;
      // Held idle, it may have died since (killed, or out of CPU headroom): then the node starts afresh.
      if (mine.isUsable) {
        runner = mine;
        this.#stats.reused++;
      } else mine.kill();
    }
    if (!runner && isDefault && kind !== "javascript") {
      runner = this.#unpark(kind, workspaceId);
      if (runner) this.#stats.reused++;
    }
    if (!runner && kind === "javascript-isolate") {
      // Started on demand, never ahead: it belongs to this workspace from its first node on.
      this.#stats.coldStarts++;
      runner = new ResidentRunner(this.#start(this.#isolateSpec(limits)), limits);
    }
    if (!runner) {
      const warm = isDefault ? this.#warm.get(language)?.take() : undefined;
      if (warm) this.#stats.warmStarts++;
      else this.#stats.coldStarts++;
      runner = new ResidentRunner(warm ?? this.#start(this.#interpreterSpec(language, limits)), limits);
    }
    const outcome = await runner.execute(request, chosen.timeoutMs, chosen.signal);
    this.#release(kind, runner, workspaceId, isDefault ? held : undefined, isDefault);
    return toRunResult(outcome, { timeoutMs: chosen.timeoutMs, durationMs: outcome.durationMs });
  }

  /**
   * Where a resident runner goes after a node. An isolate runner (it ran code only in isolates it
   * disposed of) goes straight to its workspace's parking, where the run's next node and the
   * workspace's other runs find it: held by a session until the run ended, it made every run that
   * overlapped another of its workspace start a runner of its own (a fifth of the runs at 10 clients).
   * A Python zygote goes back to its session for the run's next node and is parked when the run ends
   * (parked after each node instead, it took 40–60 % more CPU per run through the API, measured).
   * A per-run JavaScript process (it ran user code in itself) goes back to its session and is killed
   * when the run ends; so is a runner that a limit stopped.
   */
  #release(
    language: RunnerKind,
    runner: ResidentRunner,
    workspaceId: string,
    held: HeldRunners | undefined,
    isDefault = true,
  ): void {
    if (!runner.isUsable || !isDefault || this.#isClosed) {
      runner.kill();
      return;
    }
    if (language === "javascript-isolate") {
      this.#park(`${language}:${workspaceId}`, runner);
      return;
    }
    const isHeldOpen = held !== undefined && !this.#closedSessions.has(held);
    if (isHeldOpen && !held.has(language) && this.#heldBySessions < this.#options.concurrency * 4) {
      held.set(language, runner);
      this.#heldBySessions++;
      // One that dies while held (killed, out of memory) is let go at once, not found dead by the next node.
      void runner.closed.then(() => {
        if (held.get(language) !== runner) return;
        held.delete(language);
        this.#heldBySessions--;
      });
      return;
    }
    if (language !== "javascript") this.#park(`${language}:${workspaceId}`, runner);
    else runner.kill();
  }

  #park(key: string, runner: ResidentRunner): void {
    const parked = this.#parked.get(key) ?? [];
    const total = [...this.#parked.values()].reduce((sum, list) => sum + list.length, 0);
    // Idle zygotes cost memory, not CPU: a few per slot, across all workspaces; per workspace as many
    // as it may run at once (the whole pool when it borrows), so its concurrent runs each find one.
    const perWorkspace =
      this.#options.contentionWindowMs > 0
        ? this.#options.concurrency
        : this.#options.perWorkspaceConcurrency;
    if (parked.length >= perWorkspace || total >= this.#options.concurrency * 4) {
      runner.kill();
      return;
    }
    const entry = {
      runner,
      timer: setTimeout(() => {
        const list = this.#parked.get(key);
        const index = list?.indexOf(entry) ?? -1;
        if (list && index >= 0) list.splice(index, 1);
        if (list?.length === 0) this.#parked.delete(key);
        runner.kill();
      }, PARKED_IDLE_MS),
    };
    entry.timer.unref();
    parked.push(entry);
    this.#parked.set(key, parked);
  }

  #unpark(kind: RunnerKind, workspaceId: string): ResidentRunner | undefined {
    const key = `${kind}:${workspaceId}`;
    const parked = this.#parked.get(key);
    while (parked && parked.length > 0) {
      const entry = parked.pop();
      if (!entry) break;
      clearTimeout(entry.timer);
      if (entry.runner.isUsable) {
        if (parked.length === 0) this.#parked.delete(key);
        return entry.runner;
      }
      entry.runner.kill();
    }
    this.#parked.delete(key);
    return undefined;
  }

  async #runCompiled(
    definition: CompiledLanguage,
    version: string,
    code: string,
    inputJson: string,
    chosen: ChosenLimits,
  ): Promise<RunResult> {
    await this.#prepare(definition);
    // A compile is not stopped by one caller's abort: another run may be waiting for the same binary.
    const compiled = await this.#compile(definition, version, code);
    if (!compiled.isCompiled) return compiled.result;
    chosen.signal?.throwIfAborted();
    const limits = runLimits(definition.language, chosen);
    const warm = fitsWarmLimits(chosen) ? this.#warm.get(definition.language)?.take() : undefined;
    const slot = warm ? this.#slots.get(warm) : undefined;
    let outcome: ProcessOutcome;
    if (warm && slot) {
      this.#stats.warmStarts++;
      // Same filesystem as the cache, so a hard link: no copy of the binary per run.
      linkSync(compiled.path, join(slot, "main"));
      outcome = await runUntilAborted(warm, `go\n${inputJson}`, chosen);
    } else {
      warm?.kill();
      this.#stats.coldStarts++;
      const runner = this.#start({
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

  #prepare(definition: CompiledLanguage): Promise<void> {
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
    const context = this.#context;
    if (!context) throw new SandboxUnavailableError(this.#unavailableReason ?? "not initialised");
    await definition.prepare(context);
    if (definition.language === "go") {
      const toolchain = this.#toolchains.get("go");
      const version = toolchain?.isAvailable ? toolchain.version : "unknown";
      const marker = goWarmUpMarker(context, version);
      if (existsSync(marker)) return;
      // Fills the build cache with the standard packages, under the exact flags user builds use;
      // past the binary cache, since a cached warm-up binary says nothing about this build cache.
      const key = binaryKey([...definition.cacheKeyParts(version), this.#assetsHash, GO_WARM_UP_PROGRAM]);
      const warmed = await this.#compileUncached(definition, key, GO_WARM_UP_PROGRAM);
      if (!warmed.isCompiled) throw new Error(`the Go warm-up build failed: ${warmed.result.error?.message}`);
      writeFileSync(marker, "");
    }
  }

  #compile(definition: CompiledLanguage, version: string, code: string): Promise<CompileOutcome> {
    const binaries = this.#binaries;
    if (!binaries) throw new SandboxUnavailableError(this.#unavailableReason ?? "not initialised");
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
    const key = binaryKey([...definition.cacheKeyParts(version), this.#assetsHash, code]);
    const cached = binaries.get(key);
    if (cached) {
      this.#stats.cacheHits++;
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
    const context = this.#context;
    const binaries = this.#binaries;
    if (!context || !binaries)
      throw new SandboxUnavailableError(this.#unavailableReason ?? "not initialised");
    this.#stats.compiles++;
    const script = definition.compileScript(context);
    const limits = compileLimits(this.#options.compileTimeoutMs);
    const outcome = await this.#start(
      {
        command: script.command,
        limits,
        env: script.env,
        readOnlyBinds: [[context.assetsDir, "/sandbox"], ...script.readOnlyBinds],
        writableBinds: script.writableBinds,
        resultLimitBytes: BINARY_LIMIT_BYTES,
      },
      "compile",
    ).run(definition.compileInput(code));
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

/**
 * Creates the sandbox; see `Sandbox.create`.
 *
 * @example const sandbox = await createSandbox({ concurrency: 2 }); await sandbox.close();
 */
export function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return Sandbox.create(options);
}
