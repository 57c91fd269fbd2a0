/**
 * What one round of a poll loop's work found: more may be waiting, nothing was there, or nothing is
 * due before a known time (`{ idleMs }`: sleep that long, at most `maxIdleMs`, with no backoff).
 */
export type PollOutcome = "busy" | "idle" | { idleMs: number };

export interface PollLoopOptions {
  /** One round: claim and handle work. "busy" runs the next round at once, "idle" sleeps first. */
  work: () => Promise<PollOutcome>;
  /** The first sleep after an idle round; each idle round in a row doubles it up to `maxIdleMs`. */
  minIdleMs: number;
  /** The longest sleep between idle rounds; `minIdleMs` when not given (no backoff). */
  maxIdleMs?: number;
  /** A round that threw: reported here, then treated as idle so a failing database is not hammered. */
  onError: (error: unknown) => void;
}

export interface PollLoop {
  /** Starts the rounds in the background; a second call does nothing. */
  start(): void;
  /** Runs the next round now: ends a sleep, or, during a round, skips the sleep after it. */
  wake(): void;
  /** Ends the sleep and waits for the round in progress; no round starts after. */
  stop(): Promise<void>;
}

/**
 * The one polling primitive of the workers (generation polling, ingestion, webhook delivery,
 * workflow schedules):
 * rounds of `work` with an idle backoff, woken early by `wake()`. A wake that arrives while a round
 * is claiming is kept, so work committed during a claim never waits for the next poll.
 *
 * @example
 * const loop = pollLoop({ work: async () => ((await claimOne()) ? "busy" : "idle"), minIdleMs: 20, maxIdleMs: 1_000, onError: (error) => logger.error({ err: error }, "claim failed") });
 * loop.start(); // … loop.wake() after committing work; await loop.stop() on shutdown
 */
export function pollLoop(options: PollLoopOptions): PollLoop {
  const maxIdleMs = options.maxIdleMs ?? options.minIdleMs;
  let isRunning = false;
  let isWakeRequested = false;
  let running: Promise<void> | undefined;
  let endSleep: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        endSleep = undefined;
        resolve();
      }
      endSleep = done;
    });

  const run = async () => {
    let idleMs = options.minIdleMs;
    while (isRunning) {
      isWakeRequested = false;
      let outcome: PollOutcome = "idle";
      try {
        outcome = await options.work();
      } catch (error) {
        if (!isRunning) break;
        options.onError(error);
      }
      if (outcome === "busy") {
        idleMs = options.minIdleMs;
        continue;
      }
      if (isWakeRequested || !isRunning) continue;
      if (typeof outcome === "object") {
        // Work known to be due at a time (a schedule's next tick): wake then, not on the backoff.
        idleMs = options.minIdleMs;
        await sleep(Math.max(0, Math.min(outcome.idleMs, maxIdleMs)));
        continue;
      }
      await sleep(idleMs);
      idleMs = Math.min(maxIdleMs, idleMs * 2);
    }
  };

  return {
    start() {
      if (isRunning) return;
      isRunning = true;
      running = run();
    },
    wake() {
      isWakeRequested = true;
      endSleep?.();
    },
    async stop() {
      isRunning = false;
      endSleep?.();
      await running;
    },
  };
}

export interface PeriodicJobOptions {
  /** One round; what it answers is ignored. */
  run: () => Promise<unknown>;
  everyMs: number;
  /** How long to wait after a round instead of `everyMs` (a backoff), at most `everyMs`. */
  nextDelayMs?: () => number;
  /** A round that threw: reported here; the next comes after `nextDelayMs()` as after any round. */
  onError: (error: unknown) => void;
}

/**
 * A job every `everyMs` (retention, reconciliation), on the poll loop so it shares its tested
 * behaviour: the first round at `start()`, never two rounds at once, a failed round reported and
 * not fatal, `stop()` waiting for the round in progress.
 *
 * @example const job = periodicJob({ run: () => pruneDeliveryRecords(deps), everyMs: 3_600_000, onError }); job.start(); … await job.stop();
 */
export function periodicJob(options: PeriodicJobOptions): PollLoop {
  return pollLoop({
    work: async () => {
      try {
        await options.run();
      } catch (error) {
        options.onError(error);
      }
      return { idleMs: options.nextDelayMs?.() ?? options.everyMs };
    },
    minIdleMs: options.everyMs,
    // Unreached: the round reports its own failure, so a failed round keeps the job's own delay.
    onError: options.onError,
  });
}
