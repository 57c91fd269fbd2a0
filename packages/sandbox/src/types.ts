import type { LimitMechanism } from "./cgroup.ts";
import type { Language } from "./limits.ts";
import type { RunResult } from "./result.ts";
import type { RunRequest } from "./run-request.ts";

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
