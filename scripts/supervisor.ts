// Keeps a set of service processes running: one that exits unexpectedly is started again after a
// growing delay, with the reason logged, while the others keep serving; `stop()` ends them all.
// Run by Node's own type stripping (no loader), so keep this file to erasable TypeScript.
import { type ChildProcess, spawn } from "node:child_process";

export interface ServiceProcess {
  name: string;
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Timers {
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. */
  after(ms: number, run: () => void): () => void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

export interface SupervisorOptions {
  services: readonly ServiceProcess[];
  log: (line: string) => void;
  timers?: Timers;
  /** Delay before the n-th consecutive restart (n ≥ 1). */
  backoffMs?: (restart: number) => number;
  /** A service that ran this long before exiting starts its backoff again from the first delay. */
  stableAfterMs?: number;
  /** How long services may take to drain and stop before they are killed. */
  stopGraceMs?: number;
}

/** Exit code of a bad configuration (EX_CONFIG): starting again would fail the same way. */
export const EXIT_CONFIG = 78;

/** 0.5 s, 1 s, 2 s, 4 s … up to 30 s. */
export function defaultBackoffMs(restart: number): number {
  return Math.min(30_000, 500 * 2 ** Math.max(0, restart - 1));
}

interface Slot {
  service: ServiceProcess;
  child: ChildProcess | undefined;
  startedAt: number;
  consecutiveRestarts: number;
  cancelRestart: (() => void) | undefined;
}

/**
 * Starts every service and keeps it running until `stop()`.
 *
 * @example
 * const supervisor = new Supervisor({ services, log: console.error });
 * supervisor.start();
 * process.on("SIGINT", () => supervisor.stop().then((code) => process.exit(code)));
 */
export class Supervisor {
  readonly #options: Required<Omit<SupervisorOptions, "services">>;
  readonly #slots: Slot[];
  #isStopping = false;
  #stopped: Promise<number> | undefined;
  #onAllExited: (() => void) | undefined;
  /** Set when a service cannot be kept running (a configuration error); the supervisor stops. */
  #fatalExitCode = 0;
  #onFatal: ((code: number) => void) | undefined;
  /** Resolves when a service cannot be kept running (a configuration error), with the exit code to end with. */
  readonly failed: Promise<number>;

  constructor(options: SupervisorOptions) {
    this.#options = {
      log: options.log,
      timers: options.timers ?? systemTimers,
      backoffMs: options.backoffMs ?? defaultBackoffMs,
      stableAfterMs: options.stableAfterMs ?? 60_000,
      stopGraceMs: options.stopGraceMs ?? 15_000,
    };
    this.#slots = options.services.map((service) => ({
      service,
      child: undefined,
      startedAt: 0,
      consecutiveRestarts: 0,
      cancelRestart: undefined,
    }));
    this.failed = new Promise((resolve) => {
      this.#onFatal = resolve;
    });
  }

  start(): void {
    for (const slot of this.#slots) this.#launch(slot);
  }

  /** The process id of each running service, by name. */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.#slots.map((slot) => [slot.service.name, slot.child?.pid]));
  }

  /**
   * Sends SIGTERM to every service (they drain and exit), kills what is left after the grace
   * period, and resolves with the exit code the supervisor should end with.
   */
  stop(): Promise<number> {
    if (this.#stopped) return this.#stopped;
    this.#isStopping = true;
    for (const slot of this.#slots) {
      slot.cancelRestart?.();
      slot.cancelRestart = undefined;
    }
    this.#stopped = new Promise<number>((resolve) => {
      let isKilled = false;
      const finish = () => {
        cancelKill();
        resolve(this.#fatalExitCode || (isKilled ? 1 : 0));
      };
      const cancelKill = this.#options.timers.after(this.#options.stopGraceMs, () => {
        isKilled = true;
        for (const slot of this.#running()) {
          this.#options.log(`${slot.service.name} did not stop in time; killing it.`);
          slot.child?.kill("SIGKILL");
        }
      });
      this.#onAllExited = finish;
      if (this.#running().length === 0) return finish();
      for (const slot of this.#running()) slot.child?.kill("SIGTERM");
    });
    return this.#stopped;
  }

  #running(): Slot[] {
    return this.#slots.filter((slot) => slot.child !== undefined);
  }

  #launch(slot: Slot): void {
    const { service } = slot;
    // Its own process group: a terminal's Ctrl-C reaches only the supervisor, which alone decides
    // what is an expected exit. That also means nothing ends the service when the supervisor is
    // killed hard (SIGKILL, an OOM kill): the IPC channel closes then, and the service stops on its
    // "disconnect" (runService in packages/http).
    const child = spawn(service.command, service.args, {
      cwd: service.cwd,
      env: service.env,
      stdio: ["inherit", "inherit", "inherit", "ipc"],
      detached: true,
    });
    slot.child = child;
    slot.startedAt = this.#options.timers.now();
    child.on("error", (error) => this.#options.log(`${service.name} could not start: ${error.message}`));
    child.on("exit", (code, signal) => this.#exited(slot, child, code, signal));
  }

  #exited(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.child = undefined;
    const { name } = slot.service;
    if (this.#isStopping) {
      if (this.#running().length === 0) this.#onAllExited?.();
      return;
    }
    const reason = signal ? `killed by ${signal}` : `exit code ${code}`;
    if (code === EXIT_CONFIG) {
      this.#options.log(`${name} stopped: its configuration is invalid (see above). Stopping the others.`);
      this.#fatalExitCode = EXIT_CONFIG;
      this.#onFatal?.(EXIT_CONFIG);
      return;
    }
    const ranMs = this.#options.timers.now() - slot.startedAt;
    if (ranMs >= this.#options.stableAfterMs) slot.consecutiveRestarts = 0;
    slot.consecutiveRestarts += 1;
    const delay = this.#options.backoffMs(slot.consecutiveRestarts);
    const hint = signal === "SIGKILL" ? " (SIGKILL often means the machine ran out of memory)" : "";
    this.#options.log(
      `${name} exited unexpectedly: ${reason}${hint} after ${formatSeconds(ranMs)}; ` +
        `restarting in ${formatSeconds(delay)} (restart ${slot.consecutiveRestarts} in a row). The others keep running.`,
    );
    slot.cancelRestart = this.#options.timers.after(delay, () => {
      slot.cancelRestart = undefined;
      if (!this.#isStopping) this.#launch(slot);
    });
  }
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
