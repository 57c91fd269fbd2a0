import type { SandboxedProcess } from "./sandboxed-process.ts";

/**
 * Interpreters started ahead of time, already inside their sandbox and blocked on stdin. Each is
 * used once and replaced, so no state (files, globals, memory) ever passes from one run to the next.
 *
 * @example const pool = new WarmPool(() => startRunner(), 2); const runner = pool.take() ?? startRunner();
 */
export class WarmPool {
  readonly #start: () => SandboxedProcess;
  readonly #size: number;
  readonly #onFailure: (error: unknown) => void;
  readonly #ready: SandboxedProcess[] = [];
  #consecutiveFailures = 0;
  #pausedUntil = 0;
  #isClosed = false;

  constructor(start: () => SandboxedProcess, size: number, onFailure: (error: unknown) => void = () => {}) {
    this.#start = start;
    this.#size = size;
    this.#onFailure = onFailure;
  }

  /** A live runner that has not run anything yet, or undefined (the caller then starts one cold). */
  take(): SandboxedProcess | undefined {
    let runner: SandboxedProcess | undefined;
    while (!runner && this.#ready.length > 0) {
      const candidate = this.#ready.shift();
      if (candidate?.isReady) runner = candidate;
    }
    if (runner) this.#consecutiveFailures = 0;
    this.refill();
    return runner;
  }

  /** Starts runners until the pool is full; stops for a while after runners keep dying before use. */
  refill(): void {
    if (this.#isClosed || Date.now() < this.#pausedUntil) return;
    while (this.#ready.length < this.#size) {
      let runner: SandboxedProcess;
      try {
        runner = this.#start();
      } catch (error) {
        this.#fail(error);
        return;
      }
      this.#ready.push(runner);
      void runner.closed.then(() => {
        const index = this.#ready.indexOf(runner);
        if (index < 0 || this.#isClosed) return;
        // Died before being used: the interpreter cannot start in the sandbox, or was killed.
        this.#ready.splice(index, 1);
        this.#fail(new Error("a warm runner exited before it was used"));
        setTimeout(() => this.refill(), 100).unref();
      });
    }
  }

  /** Runners started and waiting for a request (not those still starting). */
  get size(): number {
    return this.#ready.filter((runner) => runner.isStarted).length;
  }

  close(): void {
    this.#isClosed = true;
    for (const runner of this.#ready.splice(0)) runner.kill();
  }

  #fail(error: unknown): void {
    this.#consecutiveFailures++;
    if (this.#consecutiveFailures >= 3) {
      this.#pausedUntil = Date.now() + 30_000;
      this.#onFailure(error);
    }
  }
}
