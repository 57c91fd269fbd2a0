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
  /**
   * A tenant may run beyond `perTenant`, up to the whole pool, once no other tenant has held or
   * waited for a slot for this long; 0 holds every tenant to its quota always. Borrowed slots are
   * lent, not given: another tenant under its quota starts at once beside them (see `Limiter`).
   */
  contentionWindowMs?: number;
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
 * The quota is work-conserving: a tenant alone for `contentionWindowMs` borrows the idle slots up to
 * the whole pool. Another tenant that shows up starts at once, up to its quota, beside the borrowed
 * runs: the pool runs over its size until they end, by at most the slots that were borrowed
 * (`concurrency - perTenant`), since a tenant never borrows while another holds or waits for a slot.
 * From then on every tenant keeps to its quota until the window passes with one tenant left.
 *
 * Why an extra slot rather than the alternatives: a borrowed run ends at its own pace (up to its
 * timeout, 60 s), so a newcomer made to wait for one waits that long. Lending only to runs that will
 * end soon would need a deadline the limiter does not have (a run's timeout is a cap, not an
 * estimate: few runs ask for less than the 10 s default), so nothing would borrow; a reserve slot
 * never lent would cost a 2-slot pool its borrowing altogether (share 1 + reserve 1) and would serve
 * one newcomer only. Running over the pool costs CPU shared a little thinner for at most one run's
 * timeout, and memory that each run's own limit bounds.
 *
 * @example const release = await limiter.acquire("ws_1"); try { await work(); } finally { release(); }
 */
export class Limiter {
  readonly #options: Required<Omit<LimiterOptions, "timers">>;
  readonly #timers: LimiterTimers;
  /**
   * The two tenants that most recently held or waited for a slot (an acquire, release or withdrawal),
   * latest first, with when: for any tenant, the latest other one is among them.
   */
  #lastSeen: { tenant: string; at: number }[] = [];
  /** Dispatches once the contention window passes with one tenant waiting and slots idle. */
  #borrowTimer: unknown;
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
    const { concurrency, perTenant, queueTimeoutMs, queuePerTenant, contentionWindowMs = 0 } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError("concurrency must be ≥ 1");
    if (!Number.isInteger(perTenant) || perTenant < 1) throw new RangeError("perTenant must be ≥ 1");
    if (!(contentionWindowMs >= 0)) throw new RangeError("contentionWindowMs must be ≥ 0");
    this.#options = {
      concurrency,
      perTenant: Math.min(perTenant, concurrency),
      queueTimeoutMs,
      queuePerTenant,
      contentionWindowMs,
    };
    this.#timers = options.timers ?? REAL_TIMERS;
  }

  /** Resolves with the release function once `tenant` may start; `signal` withdraws a queued caller. */
  acquire(tenant: string, signal?: AbortSignal): Promise<() => void> {
    if (this.#isClosed) return Promise.reject(new SandboxClosedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#see(tenant);
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
      this.#scheduleBorrowing();
    });
  }

  /** Rejects everyone still waiting; holders finish normally. */
  close(): void {
    this.#isClosed = true;
    this.#clearBorrowTimer();
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

  /** Holders beyond their tenant's quota, on slots no other tenant wanted. */
  get borrowed(): number {
    let borrowed = 0;
    for (const active of this.#activeByTenant.values())
      borrowed += Math.max(0, active - this.#options.perTenant);
    return borrowed;
  }

  /** Holders (borrowed slots included, so up to the pool) and waiters of one tenant. */
  tenant(tenant: string): { active: number; queued: number } {
    return { active: this.#activeByTenant.get(tenant) ?? 0, queued: this.#queues.get(tenant)?.length ?? 0 };
  }

  #canStart(tenant: string): boolean {
    if ((this.#activeByTenant.get(tenant) ?? 0) < this.#options.perTenant) {
      // Within its quota a tenant counts only the slots held within quotas: borrowed ones are its to take back.
      return this.#active - this.borrowed < this.#options.concurrency;
    }
    if (this.#active >= this.#options.concurrency) return false;
    return this.#borrowableAt(tenant) <= this.#timers.now();
  }

  /**
   * From when `tenant` may run beyond its quota: never while another tenant holds or waits for a slot,
   * else once the last one seen is a contention window behind.
   */
  #borrowableAt(tenant: string): number {
    const window = this.#options.contentionWindowMs;
    if (window === 0) return Number.POSITIVE_INFINITY;
    for (const other of this.#activeByTenant.keys()) if (other !== tenant) return Number.POSITIVE_INFINITY;
    for (const other of this.#queues.keys()) if (other !== tenant) return Number.POSITIVE_INFINITY;
    const other = this.#lastSeen.find((seen) => seen.tenant !== tenant);
    return other === undefined ? Number.NEGATIVE_INFINITY : other.at + window;
  }

  #see(tenant: string): void {
    const seen = { tenant, at: this.#timers.now() };
    const [latest] = this.#lastSeen;
    this.#lastSeen =
      latest === undefined || latest.tenant === tenant ? [seen, ...this.#lastSeen.slice(1)] : [seen, latest];
  }

  #clearBorrowTimer(): void {
    if (this.#borrowTimer === undefined) return;
    this.#timers.clearTimeout(this.#borrowTimer);
    this.#borrowTimer = undefined;
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
    this.#see(waiter.tenant);
    if (queue.length === 0) {
      this.#queues.delete(waiter.tenant);
      this.#turns = this.#turns.filter((tenant) => tenant !== waiter.tenant);
      // The tenant that stays may borrow once the window passes: the timer wakes it then.
      this.#dispatch();
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
      this.#see(tenant);
      this.#dispatch();
    };
  }

  /** Hands free slots to waiting tenants in turn; a tenant at its quota keeps its place in line. */
  #dispatch(): void {
    let checked = 0;
    while (checked < this.#turns.length) {
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
    this.#scheduleBorrowing();
  }

  /**
   * Slots idle while one tenant waits at its quota: it may borrow them once the contention window
   * passes, which no release may come to notice (its runs can be long), so a timer dispatches then.
   */
  #scheduleBorrowing(): void {
    if (this.#isClosed || this.#borrowTimer !== undefined) return;
    if (this.#active >= this.#options.concurrency || this.#queues.size !== 1) return;
    const [tenant] = this.#queues.keys();
    if (tenant === undefined) return;
    const at = this.#borrowableAt(tenant);
    if (!Number.isFinite(at)) return;
    this.#borrowTimer = this.#timers.setTimeout(
      () => {
        this.#borrowTimer = undefined;
        this.#dispatch();
      },
      Math.max(0, at - this.#timers.now()),
    );
  }
}
