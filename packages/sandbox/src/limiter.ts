/**
 * A run could not get a slot: it waited longer than the queue timeout, or its workspace already has
 * as many runs waiting as the queue takes. Expected under load (the API answers 429 with
 * `Retry-After`), not a fault of the service.
 */
export class SandboxBusyError extends Error {
  override name = "SandboxBusyError";
  /** What a workflow node that met it reports as its error code. */
  readonly code = "sandbox_busy";
  constructor(
    readonly waitedMs: number,
    /** When a retry has a fair chance, in whole seconds. */
    readonly retryAfterSeconds: number,
    reason: "queue_timeout" | "queue_full" = "queue_timeout",
  ) {
    super(
      reason === "queue_full"
        ? `This workspace already has the most sandbox runs waiting that the queue takes; retry in ${retryAfterSeconds} s.`
        : `The sandbox stayed busy with this workspace's other runs or other workspaces' for ${waitedMs} ms; retry in ${retryAfterSeconds} s.`,
    );
  }
}

/** Raised for queued runs when the sandbox is closed. */
export class SandboxClosedError extends Error {
  override name = "SandboxClosedError";
  constructor() {
    super("The sandbox is shut down.");
  }
}

/** The timer functions the queue timeout uses; tests pass fake ones. */
export interface LimiterTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface LimiterOptions {
  /** Holders at once across all tenants (the pool). */
  concurrency: number;
  /** Holders at once per tenant (workspace); at most `concurrency`. */
  perTenant: number;
  /** How long a caller may wait before SandboxBusyError. */
  queueTimeoutMs: number;
  /** Callers one tenant may have waiting; one more is refused at once. */
  queuePerTenant: number;
  timers?: LimiterTimers;
}

interface Waiter {
  tenant: string;
  queuedAt: number;
  resolve(release: () => void): void;
  reject(error: unknown): void;
  timer: unknown;
}

const REAL_TIMERS: LimiterTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => performance.now(),
};

/**
 * At most `concurrency` holders at once and `perTenant` per tenant; the rest wait in one queue per
 * tenant, and a freed slot goes to the next tenant in turn (round robin) that is under its quota, so
 * a workspace that floods the sandbox delays another workspace's run by at most one run.
 *
 * @example const release = await limiter.acquire("ws_1"); try { await work(); } finally { release(); }
 */
export class Limiter {
  readonly #options: Required<Omit<LimiterOptions, "timers">>;
  readonly #timers: LimiterTimers;
  /** Waiting callers per tenant, oldest first; a tenant is a key only while it has waiters. */
  readonly #queues = new Map<string, Waiter[]>();
  readonly #activeByTenant = new Map<string, number>();
  /** Tenants in the order they are served; the head is served next. */
  #turns: string[] = [];
  #active = 0;
  #maxActive = 0;
  #queued = 0;
  #isClosed = false;

  constructor(options: LimiterOptions) {
    const { concurrency, perTenant, queueTimeoutMs, queuePerTenant } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError("concurrency must be ≥ 1");
    if (!Number.isInteger(perTenant) || perTenant < 1) throw new RangeError("perTenant must be ≥ 1");
    this.#options = {
      concurrency,
      perTenant: Math.min(perTenant, concurrency),
      queueTimeoutMs,
      queuePerTenant,
    };
    this.#timers = options.timers ?? REAL_TIMERS;
  }

  /** Resolves with the release function once `tenant` may start; `signal` withdraws a queued caller. */
  acquire(tenant: string, signal?: AbortSignal): Promise<() => void> {
    if (this.#isClosed) return Promise.reject(new SandboxClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.#queues.has(tenant) && this.#canStart(tenant)) return Promise.resolve(this.#grant(tenant));
    const queue = this.#queues.get(tenant) ?? [];
    if (queue.length >= this.#options.queuePerTenant) {
      return Promise.reject(new SandboxBusyError(0, this.#retryAfterSeconds(), "queue_full"));
    }
    return new Promise((resolve, reject) => {
      const leave = (error: unknown) => {
        this.#timers.clearTimeout(waiter.timer);
        signal?.removeEventListener("abort", onAbort);
        this.#remove(waiter);
        reject(error);
      };
      const onAbort = () => leave(signal?.reason);
      const waiter: Waiter = {
        tenant,
        queuedAt: this.#timers.now(),
        resolve: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
        reject: leave,
        timer: this.#timers.setTimeout(() => {
          const waited = Math.round(this.#timers.now() - waiter.queuedAt);
          leave(new SandboxBusyError(waited, this.#retryAfterSeconds()));
        }, this.#options.queueTimeoutMs),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (!this.#queues.has(tenant)) {
        this.#queues.set(tenant, queue);
        this.#turns.push(tenant);
      }
      queue.push(waiter);
      this.#queued++;
    });
  }

  /** Rejects everyone still waiting; holders finish normally. */
  close(): void {
    this.#isClosed = true;
    for (const queue of this.#queues.values()) {
      for (const waiter of queue.splice(0)) {
        this.#timers.clearTimeout(waiter.timer);
        waiter.reject(new SandboxClosedError());
      }
    }
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#queued;
  }

  /** The most holders seen at once since start. */
  get maxActive(): number {
    return this.#maxActive;
  }

  /** Holders and waiters of one tenant. */
  tenant(tenant: string): { active: number; queued: number } {
    return { active: this.#activeByTenant.get(tenant) ?? 0, queued: this.#queues.get(tenant)?.length ?? 0 };
  }

  #canStart(tenant: string): boolean {
    return (
      this.#active < this.#options.concurrency &&
      (this.#activeByTenant.get(tenant) ?? 0) < this.#options.perTenant
    );
  }

  /**
   * Half the queue timeout, at least a second: a caller refused after waiting that long faces a
   * queue that has been full for a while, and retrying at once would only join it again.
   */
  #retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.#options.queueTimeoutMs / 2000));
  }

  #remove(waiter: Waiter): void {
    const queue = this.#queues.get(waiter.tenant);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    this.#queued--;
    if (queue.length === 0) {
      this.#queues.delete(waiter.tenant);
      this.#turns = this.#turns.filter((tenant) => tenant !== waiter.tenant);
    }
  }

  #grant(tenant: string): () => void {
    this.#active++;
    this.#activeByTenant.set(tenant, (this.#activeByTenant.get(tenant) ?? 0) + 1);
    this.#maxActive = Math.max(this.#maxActive, this.#active);
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.#active--;
      const left = (this.#activeByTenant.get(tenant) ?? 1) - 1;
      if (left === 0) this.#activeByTenant.delete(tenant);
      else this.#activeByTenant.set(tenant, left);
      this.#dispatch();
    };
  }

  /** Hands free slots to waiting tenants in turn; a tenant at its quota keeps its place in line. */
  #dispatch(): void {
    let checked = 0;
    while (this.#active < this.#options.concurrency && checked < this.#turns.length) {
      const tenant = this.#turns.shift();
      if (tenant === undefined) return;
      const queue = this.#queues.get(tenant);
      const waiter = queue?.[0];
      if (!queue || !waiter) continue;
      if (!this.#canStart(tenant)) {
        this.#turns.push(tenant);
        checked++;
        continue;
      }
      queue.shift();
      this.#queued--;
      this.#timers.clearTimeout(waiter.timer);
      if (queue.length === 0) this.#queues.delete(tenant);
      else this.#turns.push(tenant);
      checked = 0;
      waiter.resolve(this.#grant(tenant));
    }
  }
}
