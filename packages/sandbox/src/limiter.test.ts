import { describe, expect, it } from "vitest";
import { Limiter, type LimiterTimers, SandboxBusyError, SandboxClosedError } from "./limiter.ts";

/** Timers that fire only when the test moves the clock. */
function manualTimers() {
  let now = 0;
  const pending = new Set<{ at: number; callback: () => void }>();
  const timers: LimiterTimers = {
    setTimeout: (callback, ms) => {
      const timer = { at: now + ms, callback };
      pending.add(timer);
      return timer;
    },
    clearTimeout: (handle) => {
      pending.delete(handle as { at: number; callback: () => void });
    },
    now: () => now,
  };
  const advance = (ms: number) => {
    now += ms;
    for (const timer of [...pending].sort((a, b) => a.at - b.at)) {
      if (timer.at > now) continue;
      pending.delete(timer);
      timer.callback();
    }
  };
  return { timers, advance };
}

function limiter(options: Partial<ConstructorParameters<typeof Limiter>[0]> = {}) {
  const clock = manualTimers();
  return {
    ...clock,
    limiter: new Limiter({
      concurrency: 2,
      perTenant: 2,
      queueTimeoutMs: 30_000,
      queuePerTenant: 100,
      timers: clock.timers,
      ...options,
    }),
  };
}

/** Records the order in which queued acquisitions are granted. */
function track(order: string[], label: string, acquiring: Promise<() => void>) {
  return acquiring.then((release) => {
    order.push(label);
    return release;
  });
}

describe("Limiter", () => {
  it("lets `concurrency` holders in and queues the rest of one tenant in order", async () => {
    const { limiter: pool } = limiter();
    const first = await pool.acquire("a");
    const second = await pool.acquire("a");
    const order: string[] = [];
    const third = track(order, "a3", pool.acquire("a"));
    const fourth = track(order, "a4", pool.acquire("a"));
    expect(pool.active).toBe(2);
    expect(pool.queued).toBe(2);
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(["a3", "a4"]);
    expect(pool.active).toBe(0);
    expect(pool.maxActive).toBe(2);
  });

  it("keeps a tenant at its quota, so another tenant starts at once while the first floods", async () => {
    const { limiter: pool } = limiter({ concurrency: 2, perTenant: 1 });
    const flooding = await pool.acquire("flood");
    const order: string[] = [];
    const queuedFlood = Array.from({ length: 5 }, (_, i) => track(order, `flood${i}`, pool.acquire("flood")));
    expect(pool.tenant("flood")).toEqual({ active: 1, queued: 5 });
    // The second slot is free and the flooder is at its quota: the light tenant is not queued at all.
    const light = await pool.acquire("light");
    expect(pool.active).toBe(2);
    light();
    flooding();
    (await queuedFlood[0])?.();
    expect(order).toEqual(["flood0"]);
    for (const waiting of queuedFlood.slice(1)) (await waiting)();
  });

  it("serves waiting tenants round robin: a newcomer waits for one release, not for the flood's queue", async () => {
    const { limiter: pool } = limiter({ concurrency: 2, perTenant: 2 });
    const holders = [await pool.acquire("flood"), await pool.acquire("flood")];
    const order: string[] = [];
    const flood = Array.from({ length: 4 }, (_, i) => track(order, `flood${i}`, pool.acquire("flood")));
    const light = track(order, "light", pool.acquire("light"));
    holders[0]?.();
    // The flood was first in line; the next slot goes to the light tenant, not to flood1.
    const flood0 = await flood[0];
    holders[1]?.();
    const lightRelease = await light;
    expect(order).toEqual(["flood0", "light"]);
    flood0?.();
    lightRelease();
    for (const waiting of flood.slice(1)) (await waiting)?.();
    expect(order).toEqual(["flood0", "light", "flood1", "flood2", "flood3"]);
  });

  it("refuses a caller that waited past the queue timeout with a Retry-After, and keeps the queue intact", async () => {
    const { limiter: pool, advance } = limiter({ concurrency: 1, perTenant: 1, queueTimeoutMs: 10_000 });
    const release = await pool.acquire("a");
    const waiting = pool.acquire("a");
    advance(9_999);
    expect(pool.queued).toBe(1);
    advance(1);
    const error = await waiting.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxBusyError);
    expect(error).toMatchObject({ waitedMs: 10_000, retryAfterSeconds: 5 });
    expect(pool.queued).toBe(0);
    release();
    (await pool.acquire("a"))();
  });

  it("refuses at once a tenant that already has `queuePerTenant` callers waiting, not the others", async () => {
    const { limiter: pool } = limiter({ concurrency: 1, perTenant: 1, queuePerTenant: 2 });
    const release = await pool.acquire("a");
    const queued = [pool.acquire("a"), pool.acquire("a")];
    await expect(pool.acquire("a")).rejects.toMatchObject({ name: "SandboxBusyError", waitedMs: 0 });
    const other = pool.acquire("b");
    expect(pool.tenant("b").queued).toBe(1);
    release();
    for (const waiting of [queued[0], other, queued[1]]) (await waiting)?.();
  });

  it("withdraws a queued caller whose signal aborts", async () => {
    const { limiter: pool } = limiter({ concurrency: 1, perTenant: 1 });
    const release = await pool.acquire("a");
    const controller = new AbortController();
    const waiting = pool.acquire("b", controller.signal);
    controller.abort(new Error("caller gone"));
    await expect(waiting).rejects.toThrow("caller gone");
    expect(pool.queued).toBe(0);
    release();
    expect(pool.active).toBe(0);
  });

  it("ignores a second release and rejects waiters on close", async () => {
    const { limiter: pool } = limiter({ concurrency: 1, perTenant: 1 });
    const release = await pool.acquire("a");
    const waiting = pool.acquire("a");
    pool.close();
    await expect(waiting).rejects.toBeInstanceOf(SandboxClosedError);
    release();
    release();
    expect(pool.active).toBe(0);
    await expect(pool.acquire("a")).rejects.toBeInstanceOf(SandboxClosedError);
  });
  describe("borrowing idle slots (contentionWindowMs)", () => {
    const borrowing = (options: Partial<ConstructorParameters<typeof Limiter>[0]> = {}) =>
      limiter({ concurrency: 2, perTenant: 1, contentionWindowMs: 5_000, ...options });

    it("lets a lone tenant run on the whole pool, beyond its quota", async () => {
      const { limiter: pool } = borrowing();
      const holders = [await pool.acquire("a"), await pool.acquire("a")];
      expect(pool.tenant("a")).toEqual({ active: 2, queued: 0 });
      expect(pool.borrowed).toBe(1);
      const third = pool.acquire("a");
      expect(pool.queued).toBe(1);
      holders[0]?.();
      // The freed slot goes back to the lone tenant: still nobody else in sight.
      holders.push(await third);
      expect(pool.tenant("a")).toEqual({ active: 2, queued: 0 });
      for (const release of holders) release();
      expect(pool.active).toBe(0);
    });

    it("starts a newcomer at once beside the borrowed runs, without waiting for one to end, then holds the borrower to its quota", async () => {
      const { limiter: pool } = borrowing();
      const holders = [await pool.acquire("flood"), await pool.acquire("flood")];
      const order: string[] = [];
      const flood = Array.from({ length: 3 }, (_, i) => track(order, `flood${i}`, pool.acquire("flood")));
      // The flood holds the whole pool, one slot of it borrowed, and none of its runs has ended.
      const starting = pool.acquire("light");
      expect(pool.tenant("light")).toEqual({ active: 1, queued: 0 });
      expect(pool.tenant("flood")).toEqual({ active: 2, queued: 3 });
      expect(pool.active).toBe(3);
      const light = await starting;
      // Within its quota the newcomer took what was lent, no more: a second run of it waits.
      const lightSecond = track(order, "light2", pool.acquire("light"));
      expect(pool.tenant("light")).toEqual({ active: 1, queued: 1 });
      // The borrowed run ends: the pool is back to its size and the flood is not given its slot back.
      holders[0]?.();
      expect(pool.active).toBe(2);
      expect(order).toEqual([]);
      light();
      const lightSecondRelease = await lightSecond;
      expect(order).toEqual(["light2"]);
      expect(pool.borrowed).toBe(0);
      holders[1]?.();
      const flood0 = await flood[0];
      expect(pool.tenant("flood")).toEqual({ active: 1, queued: 2 });
      // The light tenant is done, but seen a moment ago: its next run must find its slot free.
      lightSecondRelease();
      expect(pool.tenant("flood")).toEqual({ active: 1, queued: 2 });
      expect(pool.active).toBe(1);
      (await pool.acquire("light"))();
      flood0?.();
      for (const waiting of flood.slice(1)) (await waiting)?.();
      expect(order).toEqual(["light2", "flood0", "flood1", "flood2"]);
    });

    it("runs over the pool by at most the borrowed slots: with them taken back, a third tenant waits", async () => {
      const { limiter: pool } = borrowing({ concurrency: 4, perTenant: 2 });
      const holders = await Promise.all(Array.from({ length: 4 }, () => pool.acquire("flood")));
      expect(pool.borrowed).toBe(2);
      const light = [pool.acquire("light"), pool.acquire("light")];
      expect(pool.active).toBe(6);
      holders.push(...(await Promise.all(light)));
      const third = pool.acquire("third");
      expect(pool.tenant("third")).toEqual({ active: 0, queued: 1 });
      holders[0]?.();
      expect(pool.tenant("third").active).toBe(0);
      holders[1]?.();
      // Back to the pool's size with every tenant within its quota: the next release is the third's.
      expect(pool.active).toBe(4);
      holders[2]?.();
      holders.push(await third);
      expect(pool.tenant("third").active).toBe(1);
      for (const release of holders.slice(3)) release();
      expect(pool.active).toBe(0);
    });

    it("resumes borrowing once the window passes with one tenant left, without waiting for a release", async () => {
      const { limiter: pool, advance } = borrowing();
      const flooding = await pool.acquire("flood");
      (await pool.acquire("light"))();
      const order: string[] = [];
      const queued = track(order, "flood1", pool.acquire("flood"));
      advance(4_999);
      await Promise.resolve();
      expect(pool.tenant("flood")).toEqual({ active: 1, queued: 1 });
      advance(1);
      const second = await queued;
      expect(pool.tenant("flood")).toEqual({ active: 2, queued: 0 });
      expect(order).toEqual(["flood1"]);
      flooding();
      second();
    });

    it("does not borrow with the window at 0: the quota always holds", async () => {
      const { limiter: pool, advance } = borrowing({ contentionWindowMs: 0 });
      const first = await pool.acquire("a");
      const waiting = pool.acquire("a");
      advance(20_000);
      expect(pool.tenant("a")).toEqual({ active: 1, queued: 1 });
      first();
      (await waiting)();
    });

    it("still times out and withdraws waiters while a tenant borrows", async () => {
      const { limiter: pool, advance } = borrowing({ queueTimeoutMs: 10_000 });
      const holders = [await pool.acquire("flood"), await pool.acquire("flood")];
      // The light tenant takes the borrowed slot back; a third finds the pool full within quotas.
      const starting = pool.acquire("light");
      expect(pool.tenant("light").active).toBe(1);
      const light = await starting;
      const late = pool.acquire("third");
      const controller = new AbortController();
      const withdrawn = pool.acquire("other", controller.signal);
      controller.abort(new Error("caller gone"));
      await expect(withdrawn).rejects.toThrow("caller gone");
      advance(10_000);
      await expect(late).rejects.toMatchObject({ name: "SandboxBusyError", waitedMs: 10_000 });
      expect(pool.queued).toBe(0);
      light();
      // Other tenants ran a moment ago: the flood keeps to its quota after its borrowed run.
      holders[0]?.();
      const queued = pool.acquire("flood");
      expect(pool.tenant("flood")).toEqual({ active: 1, queued: 1 });
      advance(5_000);
      holders.push(await queued);
      expect(pool.tenant("flood").active).toBe(2);
      for (const release of holders) release();
    });

    it("rejects a borrower's waiters on close and sets no timer after it", async () => {
      const { limiter: pool, advance } = borrowing();
      const holders = [await pool.acquire("flood")];
      (await pool.acquire("light"))();
      const waiting = pool.acquire("flood");
      pool.close();
      await expect(waiting).rejects.toBeInstanceOf(SandboxClosedError);
      advance(5_000);
      for (const release of holders) release();
      expect(pool.active).toBe(0);
    });
  });
});
