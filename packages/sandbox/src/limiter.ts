/** Raised when a run waited in the queue longer than the queue timeout. */
export class SandboxBusyError extends Error {
  override name = "SandboxBusyError";
  constructor(readonly waitedMs: number) {
    super(`Every sandbox slot stayed busy for ${waitedMs} ms; try again shortly.`);
  }
}

/** Raised for queued runs when the sandbox is closed. */
export class SandboxClosedError extends Error {
  override name = "SandboxClosedError";
  constructor() {
    super("The sandbox is shut down.");
  }
}

interface Waiter {
  resolve(release: () => void): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * At most `concurrency` holders at once; the rest wait in FIFO order for at most `queueTimeoutMs`.
 *
 * @example const release = await limiter.acquire(); try { await work(); } finally { release(); }
 */
export class Limiter {
  readonly #concurrency: number;
  readonly #queueTimeoutMs: number;
  readonly #waiting: Waiter[] = [];
  #active = 0;
  #maxActive = 0;
  #isClosed = false;

  constructor(concurrency: number, queueTimeoutMs: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError("concurrency must be ≥ 1");
    this.#concurrency = concurrency;
    this.#queueTimeoutMs = queueTimeoutMs;
  }

  /** Resolves with the release function once a slot is free; `signal` withdraws a queued caller. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#isClosed) return Promise.reject(new SandboxClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#concurrency) return Promise.resolve(this.#grant());
    return new Promise((resolve, reject) => {
      const leave = (error: unknown) => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener("abort", onAbort);
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(error);
      };
      const onAbort = () => leave(signal?.reason);
      const waiter: Waiter = {
        resolve: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
        reject: leave,
        timer: setTimeout(() => leave(new SandboxBusyError(this.#queueTimeoutMs)), this.#queueTimeoutMs),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Rejects everyone still waiting; holders finish normally. */
  close(): void {
    this.#isClosed = true;
    for (const waiter of this.#waiting.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new SandboxClosedError());
    }
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** The most holders seen at once since start. */
  get maxActive(): number {
    return this.#maxActive;
  }

  #grant(): () => void {
    this.#active++;
    this.#maxActive = Math.max(this.#maxActive, this.#active);
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.#active--;
      const next = this.#waiting.shift();
      if (!next) return;
      clearTimeout(next.timer);
      next.resolve(this.#grant());
    };
  }
}
