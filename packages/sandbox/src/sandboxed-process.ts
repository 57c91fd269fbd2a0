import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { RunCgroup } from "./cgroup.ts";
import type { HostTools } from "./host.ts";
import { type ProcessLimits, prlimitArgs, RESULT_LIMIT_BYTES } from "./limits.ts";
import { stalledSoFar } from "./loop-stalls.ts";

/** What one sandboxed process tree gets to see and use. */
export interface SandboxSpec {
  /** The command inside the sandbox; paths must exist there (under /usr or a bind). */
  command: readonly string[];
  /** The unprivileged uid (and gid) the tree runs as; undefined when the host is not root and cannot switch. */
  uid: number | undefined;
  limits: ProcessLimits;
  env: Readonly<Record<string, string>>;
  readOnlyBinds?: readonly (readonly [source: string, destination: string])[];
  writableBinds?: readonly (readonly [source: string, destination: string])[];
  cgroup?: RunCgroup | undefined;
  /** Bytes accepted on fd 3 (default 1 MiB); a compile sends the binary there. */
  resultLimitBytes?: number;
}

/** What the sandbox asks for when it starts a process; it picks the uid and the cgroup itself. */
export type ProcessSpec = Omit<SandboxSpec, "uid" | "cgroup">;

/** Starts a sandboxed process: as a run (a uid of its own) or as a compile (the compile uid). */
export type StartProcess = (spec: ProcessSpec, role?: "run" | "compile") => SandboxedProcess;

/** How a sandboxed process ended, as seen from the host. */
export interface ProcessOutcome {
  /** The program's exit code; 128+N when signal N killed it inside the sandbox; null when the host killed it. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Bytes written to fd 3, or null when nothing was written. */
  result: Buffer | null;
  isTimedOut: boolean;
  /** stdout+stderr went past `outputBytes`: they are cut there and the process was stopped. */
  isOutputTruncated: boolean;
  /** fd 3 went past the result limit: the process was stopped and `result` is null. */
  isResultTooLarge: boolean;
  isOomKilled: boolean;
  durationMs: number;
}

const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Where a resident process's output goes instead of being collected for one run (see resident.ts). */
export interface ProcessListener {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** fd 3 after the readiness byte. */
  result(chunk: Buffer): void;
}

/**
 * The bwrap arguments of a spec: new user, pid, net, ipc, uts and cgroup namespaces; only /usr
 * (read-only) and the given binds from the host; sized tmpfs on /tmp and /dev/shm; an empty
 * environment apart from `env`; and the seccomp filter read from fd 4.
 *
 * @example bwrapArgs(tools, spec) // ["--unshare-all", "--unshare-user", ...]
 */
export function bwrapArgs(tools: HostTools, spec: SandboxSpec): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    ...(tools.hasDisableUserns ? ["--disable-userns"] : []),
    "--die-with-parent",
    // A new session: no controlling terminal to push keystrokes into (CVE-2017-5226).
    "--new-session",
    "--hostname",
    "sandbox",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/sbin",
    "/sbin",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // bwrap's /dev is an unbounded tmpfs; a sized /dev/shm and a read-only /dev close that (measured: 64 MB went in).
    "--size",
    String(spec.limits.shmBytes),
    "--perms",
    "1777",
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    "--size",
    String(spec.limits.tmpBytes),
    "--perms",
    "1777",
    "--tmpfs",
    "/tmp",
  ];
  for (const path of tools.etcBinds) args.push("--ro-bind", path, path);
  for (const [source, destination] of spec.readOnlyBinds ?? []) args.push("--ro-bind", source, destination);
  for (const [source, destination] of spec.writableBinds ?? []) args.push("--bind", source, destination);
  // bwrap's root is a writable tmpfs; after the mounts only /tmp, /dev/shm and writable binds stay writable.
  args.push("--remount-ro", "/");
  args.push("--chdir", "/tmp", "--clearenv");
  const env: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: "/tmp",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    ...spec.env,
  };
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--seccomp", "4");
  return args;
}

/**
 * The host command line: bwrap, then `prlimit` applying the rlimits inside (after bwrap made the
 * user namespace), then the program. The uid switch happens before, in the spawn itself.
 *
 * @example const [file, ...args] = sandboxCommand(tools, spec, { memoryByRlimit: true });
 */
export function sandboxCommand(
  tools: HostTools,
  spec: SandboxSpec,
  options: { memoryByRlimit: boolean },
): string[] {
  return [
    tools.bwrap,
    ...bwrapArgs(tools, spec),
    "--",
    tools.prlimit,
    ...prlimitArgs(spec.limits, options),
    "--",
    ...spec.command,
  ];
}

/**
 * A shell in front of bwrap when needed: it closes descriptors this service inherited
 * without close-on-exec (they would otherwise reach the code), and with a cgroup it waits on fd 5
 * until the host has moved it into the run's cgroup, so every process of the tree is born inside.
 *
 * @example preludeCommand(tools, false) // [] when nothing leaks and no cgroup is used
 */
export function preludeCommand(tools: HostTools, hasCgroup: boolean): string[] {
  const steps: string[] = [];
  if (hasCgroup) steps.push("read -r _ <&5", "exec 5<&-");
  if (tools.inheritedFds.length > 0)
    steps.push(`exec ${tools.inheritedFds.map((fd) => `${fd}>&-`).join(" ")}`);
  if (steps.length === 0) return [];
  const shell = tools.inheritedFds.length > 0 ? tools.bash : "/bin/sh";
  if (!shell) throw new Error("bash is needed to close inherited descriptors");
  // --norc: bash sources ~/.bashrc when its stdin is a socket (its rshd heuristic), and Node's pipes are sockets.
  const options = shell.endsWith("bash") ? ["--norc", "--noprofile"] : [];
  // A shell exports PWD (this service's working directory) and SHLVL to what it runs, and bwrap's
  // init keeps its own environment, readable in the sandbox as /proc/1/environ: env -i hands bwrap
  // the same PATH-only block a direct spawn gives it.
  return [
    shell,
    ...options,
    "-c",
    `${steps.join("; ")}; exec /usr/bin/env -i PATH=${SANDBOX_PATH} "$@"`,
    "sandbox",
  ];
}

/**
 * One sandboxed process tree, started at once and blocked on stdin until `run` sends its input:
 * that is what lets the warm pool start interpreters before a request arrives. The environment of
 * this service is never passed down: bwrap gets only PATH, so not even /proc/1/environ (bwrap's own
 * init) shows a secret.
 *
 * @example const child = SandboxedProcess.start(tools, filter, spec); const outcome = await child.run('{"a":1}');
 */
export class SandboxedProcess {
  readonly #child: ChildProcess;
  readonly #spec: SandboxSpec;
  readonly #stdout: Buffer[] = [];
  readonly #stderr: Buffer[] = [];
  readonly #result: Buffer[] = [];
  readonly #closed: Promise<number | null>;
  readonly #ready: Promise<void>;
  #resolveReady: () => void = () => {};
  #hasSignalledReady = false;
  #outputBytes = 0;
  #resultBytes = 0;
  #isTimedOut = false;
  #isOutputTruncated = false;
  #isResultTooLarge = false;
  #hasExited = false;
  #isRunning = false;
  #spawnError: Error | undefined;
  #listener: ProcessListener | undefined;

  private constructor(child: ChildProcess, spec: SandboxSpec) {
    this.#child = child;
    this.#spec = spec;
    this.#closed = new Promise((resolve) => {
      child.once("close", (code) => {
        this.#hasExited = true;
        resolve(code);
      });
      child.once("error", (error) => {
        this.#spawnError = error;
        this.#hasExited = true;
        resolve(null);
      });
    });
    this.#ready = new Promise((resolve) => {
      this.#resolveReady = resolve;
    });
    const pipes = child.stdio as readonly (Readable | Writable | null | undefined)[];
    const [stdin, stdout, stderr, result] = [pipes[0], pipes[1], pipes[2], pipes[3]];
    // The child may die before reading its input; that shows in the outcome, not as an EPIPE crash.
    (stdin as Writable | null)?.on("error", () => {});
    (stdout as Readable | null)?.on("data", (chunk: Buffer) =>
      this.#listener ? this.#listener.stdout(chunk) : this.#collectOutput(this.#stdout, chunk),
    );
    (stderr as Readable | null)?.on("data", (chunk: Buffer) =>
      this.#listener ? this.#listener.stderr(chunk) : this.#collectOutput(this.#stderr, chunk),
    );
    (result as Readable | null)?.on("data", (chunk: Buffer) => this.#collectResult(chunk));
  }

  /**
   * Spawns the tree. With a cgroup, a root shell first waits for the host to move it into the
   * cgroup, so every process of the tree is born inside it.
   */
  static start(
    tools: HostTools,
    seccomp: Buffer,
    spec: SandboxSpec,
    options: { memoryByRlimit: boolean },
  ): SandboxedProcess {
    const command = sandboxCommand(tools, spec, options);
    const [file, ...args] = [...preludeCommand(tools, spec.cgroup !== undefined), ...command];
    if (!file) throw new Error("empty sandbox command");
    const child: ChildProcess = spawn(file, args, {
      // The service's environment (secrets included) stays here: bwrap and its init see only PATH.
      env: { PATH: SANDBOX_PATH },
      // A process group of its own, so a timeout kills bwrap and whatever it forked in one signal.
      detached: true,
      // Root must not enter bwrap: inside, root keeps every capability and RLIMIT_NPROC does not
      // apply to it. libuv drops the supplementary groups, then the gid, then the uid, before exec
      // (what setpriv would do, one process fewer).
      ...(spec.uid === undefined ? {} : { uid: spec.uid, gid: spec.uid }),
      stdio: ["pipe", "pipe", "pipe", "pipe", "pipe", ...(spec.cgroup ? (["pipe"] as const) : [])],
    });
    const sandboxed = new SandboxedProcess(child, spec);
    const pipes = child.stdio as readonly (Readable | Writable | null | undefined)[];
    const seccompPipe = pipes[4] as Writable | null;
    seccompPipe?.on("error", () => {});
    seccompPipe?.end(seccomp);
    if (spec.cgroup && child.pid !== undefined) {
      const gatePipe = pipes[5] as Writable | null;
      gatePipe?.on("error", () => {});
      try {
        spec.cgroup.adopt(child.pid);
        gatePipe?.end("go\n");
      } catch (error) {
        sandboxed.kill();
        throw error;
      }
    }
    return sandboxed;
  }

  /** Whether the tree is still alive and has not been given its input yet. */
  get isReady(): boolean {
    return !this.#hasExited && !this.#isRunning;
  }

  /** Whether the program inside has started (sent its readiness byte) and is still alive. */
  get isStarted(): boolean {
    return this.#hasSignalledReady && !this.#hasExited;
  }

  get uid(): number | undefined {
    return this.#spec.uid;
  }

  /**
   * Makes this a resident process: its output goes to `listener` and `send` writes requests, for
   * as long as it lives (instead of `run`, which sends one input and waits for the end).
   */
  attach(listener: ProcessListener): void {
    if (this.#isRunning) throw new Error("the process already runs");
    this.#isRunning = true;
    this.#listener = listener;
  }

  /**
   * Resolves true once the program inside has sent its readiness byte (see `run`), false when the
   * tree ended before.
   */
  async whenStarted(): Promise<boolean> {
    await Promise.race([this.#ready, this.#closed]);
    return this.#hasSignalledReady && !this.#hasExited;
  }

  /** Writes to a resident process's stdin (after `whenStarted`). */
  send(data: string | Buffer): void {
    if (!this.#listener) throw new Error("send needs an attached process");
    if (!this.#hasExited) (this.#child.stdin as Writable | null)?.write(data);
  }

  get hasExited(): boolean {
    return this.#hasExited;
  }

  /** OOM kills in the sandbox's cgroup so far (0 without one). */
  oomKills(): number {
    return this.#spec.cgroup?.oomKills() ?? 0;
  }

  /** Resolves when the process tree is gone, however it ended. */
  get closed(): Promise<number | null> {
    return this.#closed;
  }

  /**
   * Sends `input` on stdin, starts the wall-clock timer (`wallMs`, default the spec's) and waits for
   * the tree to end. Never rejects for anything the code does: timeouts, crashes and limits are in
   * the outcome. A warm process gets its timer only now, so time spent waiting in the pool is free.
   */
  async run(input: string | Buffer, wallMs: number = this.#spec.limits.wallMs): Promise<ProcessOutcome> {
    if (this.#isRunning) throw new Error("a sandboxed process runs once");
    this.#isRunning = true;
    const started = performance.now();
    let stalledUntilNow = stalledSoFar();
    const onDeadline = () => {
      // Time this service's event loop was stalled is given back: the program may be done, or may
      // have waited for its input, with nobody looking. The CPU-time limit holds regardless.
      const owed = stalledSoFar() - stalledUntilNow;
      if (owed > 0) {
        stalledUntilNow += owed;
        timer = setTimeout(onDeadline, owed);
        return;
      }
      this.#isTimedOut = true;
      this.kill();
    };
    let timer = setTimeout(onDeadline, wallMs);
    // Input goes in only after the program inside wrote its readiness byte on fd 3. By then bwrap has
    // armed --die-with-parent in every process of the sandbox (its pid 1 does so right after forking
    // the program), so if this service dies, the whole sandbox dies. Before it, a dying service leaves
    // the program an empty stdin, and it exits instead of running code nothing would ever stop.
    await Promise.race([this.#ready, this.#closed]);
    if (!this.#hasExited) (this.#child.stdin as Writable | null)?.end(input);
    const code = await this.#closed;
    clearTimeout(timer);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    if (this.#spawnError) throw this.#spawnError;
    const isOomKilled = this.#spec.cgroup?.wasOomKilled() ?? false;
    return {
      exitCode: this.#isTimedOut || this.#isOutputTruncated || this.#isResultTooLarge ? null : code,
      stdout: Buffer.concat(this.#stdout).toString("utf8"),
      stderr: Buffer.concat(this.#stderr).toString("utf8"),
      result: this.#isResultTooLarge || this.#resultBytes === 0 ? null : Buffer.concat(this.#result),
      isTimedOut: this.#isTimedOut,
      isOutputTruncated: this.#isOutputTruncated,
      isResultTooLarge: this.#isResultTooLarge,
      isOomKilled,
      durationMs,
    };
  }

  /** SIGKILL to the whole process group; bwrap's --die-with-parent and the pid namespace take the rest down. */
  kill(): void {
    if (this.#hasExited || this.#child.pid === undefined) return;
    try {
      process.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  #collectOutput(target: Buffer[], chunk: Buffer): void {
    if (this.#isOutputTruncated) return;
    const room = this.#spec.limits.outputBytes - this.#outputBytes;
    if (chunk.length > room) {
      target.push(chunk.subarray(0, room));
      this.#outputBytes += room;
      this.#isOutputTruncated = true;
      this.kill();
      return;
    }
    target.push(chunk);
    this.#outputBytes += chunk.length;
  }

  #collectResult(chunk: Buffer): void {
    if (!this.#hasSignalledReady) {
      this.#hasSignalledReady = true;
      this.#resolveReady();
      // The readiness byte is protocol, not result.
      if (chunk[0] === 0x0a) chunk = chunk.subarray(1);
      if (chunk.length === 0) return;
    }
    if (this.#listener) {
      this.#listener.result(chunk);
      return;
    }
    if (this.#isResultTooLarge) return;
    this.#resultBytes += chunk.length;
    if (this.#resultBytes > this.#resultLimit) {
      this.#isResultTooLarge = true;
      this.#result.length = 0;
      this.kill();
      return;
    }
    this.#result.push(chunk);
  }

  get #resultLimit(): number {
    return this.#spec.resultLimitBytes ?? RESULT_LIMIT_BYTES;
  }
}
