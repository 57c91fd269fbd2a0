/** How often the watch looks at the clock. */
const BEAT_MS = 100;
/** A beat this much later than due means the event loop was stalled, not merely busy. */
const STALL_MS = 250;

let stalledMs = 0;
let lastBeat = 0;
let watch: NodeJS.Timeout | undefined;

/**
 * Milliseconds this process's event loop has spent stalled (long synchronous stretches, such as a
 * big statement on the embedded database, which runs on this thread) since the watch began. The
 * watch starts on the first call and never keeps the process alive. A sandbox's wall clock runs on
 * timers: what the loop could not see during a stall (a program's readiness, or its exit) must not
 * count against the program.
 *
 * @example const before = stalledSoFar(); ... const stalled = stalledSoFar() - before;
 */
export function stalledSoFar(): number {
  if (!watch) {
    lastBeat = performance.now();
    watch = setInterval(() => {
      const now = performance.now();
      const late = now - lastBeat - BEAT_MS;
      if (late > STALL_MS) stalledMs += late;
      lastBeat = now;
    }, BEAT_MS).unref();
  }
  return stalledMs;
}
