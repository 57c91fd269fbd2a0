/** Where the current time comes from; tests pass a clock they can move. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that only moves when told to, for tests of schedules and expiry.
 *
 * @example const clock = manualClock(new Date("2026-01-01")); clock.advance(60_000);
 */
export function manualClock(
  start: Date = new Date(),
): Clock & { advance(ms: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
    set: (at) => {
      current = at.getTime();
    },
  };
}

/** Unix time in whole seconds. */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
