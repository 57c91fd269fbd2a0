import { describe, expect, it } from "vitest";
import { Limiter, SandboxBusyError, SandboxClosedError } from "./limiter.ts";

describe("Limiter", () => {
  it("lets `concurrency` holders in and queues the rest in order", async () => {
    const limiter = new Limiter(2, 5_000);
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const order: number[] = [];
    const third = limiter.acquire().then((release) => {
      order.push(3);
      return release;
    });
    const fourth = limiter.acquire().then((release) => {
      order.push(4);
      return release;
    });
    expect(limiter.active).toBe(2);
    expect(limiter.queued).toBe(2);
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    expect(limiter.active).toBe(0);
    expect(limiter.maxActive).toBe(2);
  });

  it("gives up on a queued caller after the queue timeout", async () => {
    const limiter = new Limiter(1, 20);
    const release = await limiter.acquire();
    await expect(limiter.acquire()).rejects.toBeInstanceOf(SandboxBusyError);
    expect(limiter.queued).toBe(0);
    release();
    (await limiter.acquire())();
  });

  it("withdraws a queued caller whose signal aborts", async () => {
    const limiter = new Limiter(1, 5_000);
    const release = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("caller gone"));
    await expect(waiting).rejects.toThrow("caller gone");
    expect(limiter.queued).toBe(0);
    release();
    expect(limiter.active).toBe(0);
  });

  it("ignores a second release and rejects waiters on close", async () => {
    const limiter = new Limiter(1, 5_000);
    const release = await limiter.acquire();
    const waiting = limiter.acquire();
    limiter.close();
    await expect(waiting).rejects.toBeInstanceOf(SandboxClosedError);
    release();
    release();
    expect(limiter.active).toBe(0);
    await expect(limiter.acquire()).rejects.toBeInstanceOf(SandboxClosedError);
  });
});
