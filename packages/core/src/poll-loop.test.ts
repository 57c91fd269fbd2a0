import { describe, expect, it } from "vitest";
import { type PollOutcome, periodicJob, pollLoop } from "./poll-loop.ts";

const HOUR = 3_600_000;

/** A promise with its resolver outside, to let a test hold a round open. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("pollLoop", () => {
  it("runs busy rounds back to back until one finds nothing", async () => {
    const outcomes: PollOutcome[] = ["busy", "busy", "idle"];
    const idle = deferred();
    let rounds = 0;
    const loop = pollLoop({
      work: async () => {
        rounds += 1;
        const outcome = outcomes.shift() ?? "idle";
        if (outcome === "idle") idle.resolve();
        return outcome;
      },
      minIdleMs: HOUR,
      onError: () => {},
    });
    loop.start();
    await idle.promise;
    await loop.stop();
    expect(rounds).toBe(3);
  });

  it("keeps a wake that arrives while a round is claiming: the next round follows without the idle sleep", async () => {
    const claiming = deferred();
    const secondRound = deferred();
    let rounds = 0;
    const loop = pollLoop({
      work: async () => {
        rounds += 1;
        if (rounds === 1) {
          claiming.resolve();
          // The wake lands here, after this round looked and found nothing.
          await new Promise((resolve) => setImmediate(resolve));
          return "idle";
        }
        secondRound.resolve();
        return "idle";
      },
      // Were the wake lost, the second round would come an hour later and the test would time out.
      minIdleMs: HOUR,
      onError: () => {},
    });
    loop.start();
    await claiming.promise;
    loop.wake();
    await secondRound.promise;
    await loop.stop();
    expect(rounds).toBe(2);
  });

  it("ends an idle sleep on wake", async () => {
    const rounds: number[] = [];
    const second = deferred();
    const loop = pollLoop({
      work: async () => {
        rounds.push(rounds.length + 1);
        if (rounds.length === 2) second.resolve();
        return "idle";
      },
      minIdleMs: HOUR,
      onError: () => {},
    });
    loop.start();
    await new Promise((resolve) => setImmediate(resolve));
    loop.wake();
    await second.promise;
    await loop.stop();
    expect(rounds).toEqual([1, 2]);
  });

  it("sleeps for the time a round names, capped at maxIdleMs, instead of the backoff", async () => {
    const startedAt: number[] = [];
    const third = deferred();
    const loop = pollLoop({
      work: async () => {
        startedAt.push(performance.now());
        if (startedAt.length === 3) third.resolve();
        // The first round asks for 20 ms, the second for an hour: the cap (60 ms) applies.
        return { idleMs: startedAt.length === 1 ? 20 : HOUR };
      },
      minIdleMs: HOUR,
      maxIdleMs: 60,
      onError: () => {},
    });
    loop.start();
    await third.promise;
    await loop.stop();
    const [first = 0, second = 0, last = 0] = startedAt;
    // Were the backoff used, the second round would come an hour later.
    expect(second - first).toBeGreaterThanOrEqual(19);
    expect(last - second).toBeGreaterThanOrEqual(59);
    expect(last - first).toBeLessThan(HOUR);
  });

  it("reports a round that throws and goes on after its idle sleep", async () => {
    const errors: unknown[] = [];
    const recovered = deferred();
    let rounds = 0;
    const loop = pollLoop({
      work: async () => {
        rounds += 1;
        if (rounds === 1) throw new Error("database unreachable");
        recovered.resolve();
        return "idle";
      },
      minIdleMs: 1,
      onError: (error) => errors.push(error),
    });
    loop.start();
    await recovered.promise;
    await loop.stop();
    expect(errors).toEqual([new Error("database unreachable")]);
  });

  it("stop ends the sleep, waits for the round in progress, and starts no other", async () => {
    const inRound = deferred();
    const finishRound = deferred();
    let rounds = 0;
    let hasFinished = false;
    const loop = pollLoop({
      work: async () => {
        rounds += 1;
        inRound.resolve();
        await finishRound.promise;
        hasFinished = true;
        return "busy";
      },
      minIdleMs: HOUR,
      onError: () => {},
    });
    loop.start();
    await inRound.promise;
    const stopped = loop.stop();
    finishRound.resolve();
    await stopped;
    expect(hasFinished).toBe(true);
    expect(rounds).toBe(1);
  });
});

describe("periodicJob", () => {
  it("runs at start, then after each round's own delay; a failed round is reported and the job goes on", async () => {
    const errors: unknown[] = [];
    const third = deferred();
    let rounds = 0;
    const job = periodicJob({
      run: async () => {
        rounds += 1;
        if (rounds === 2) throw new Error("payment service down");
        if (rounds === 3) third.resolve();
      },
      // An hour between rounds, unless the round asks for sooner: only then can three rounds end here.
      everyMs: HOUR,
      nextDelayMs: () => 1,
      onError: (error) => errors.push(error),
    });
    job.start();
    expect(rounds).toBe(1);
    await third.promise;
    await job.stop();
    expect(errors).toEqual([new Error("payment service down")]);
  });

  it("stops after the round in progress, and never runs two rounds at once", async () => {
    const release = deferred();
    const started = deferred();
    let running = 0;
    let most = 0;
    const job = periodicJob({
      run: async () => {
        running += 1;
        most = Math.max(most, running);
        started.resolve();
        await release.promise;
        running -= 1;
      },
      everyMs: 1,
      onError: () => {},
    });
    job.start();
    await started.promise;
    let isStopped = false;
    const stopping = job.stop().then(() => {
      isStopped = true;
    });
    await Promise.resolve();
    expect(isStopped).toBe(false);
    release.resolve();
    await stopping;
    expect(running).toBe(0);
    expect(most).toBe(1);
  });
});
