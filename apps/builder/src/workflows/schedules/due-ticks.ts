import type { CronTicks } from "./cron.ts";
import type { ScheduleCatchUp, ScheduleOverlap } from "./schema.ts";

/** A tick the scheduler reaches later than this was missed (nothing ran then): `catch_up` decides. */
export const MISSED_AFTER_MS = 60_000;
/** At most this many missed ticks fire after an outage (`catch_up: "all"`), and wait in a queue. */
export const MAX_CATCH_UP_TICKS = 100;

export interface DueTicks {
  /** The ticks that fire, oldest first. */
  fire: Date[];
  /** The first tick after `now`: the schedule's next `next_fire_at` (null: the cron has no more). */
  next: Date | null;
}

/**
 * Which of a schedule's due ticks (from `nextFireAt` up to `now`) fire. The most recent due tick is
 * on time when the scheduler reaches it within `MISSED_AFTER_MS`; every earlier one, and a later
 * one, was missed. `none` fires only an on-time tick, `latest` the most recent due tick once, `all`
 * each due tick (the most recent `MAX_CATCH_UP_TICKS`).
 *
 * @example dueTicks(cronTicks("0 * * * *", "UTC"), new Date("2026-01-01T10:00:00Z"), "latest", new Date("2026-01-01T12:30:00Z")) // fire [12:00], next 13:00
 */
export function dueTicks(ticks: CronTicks, nextFireAt: Date, catchUp: ScheduleCatchUp, now: Date): DueTicks {
  const afterFirst = ticks.next(nextFireAt);
  if (afterFirst === null || afterFirst > now) {
    // The common case, one due tick: no search backwards.
    const isMissed = now.getTime() - nextFireAt.getTime() > MISSED_AFTER_MS;
    return { fire: catchUp === "none" && isMissed ? [] : [nextFireAt], next: afterFirst };
  }
  const next = ticks.next(now);
  // `previousRuns` answers ticks strictly before its argument: one millisecond on includes `now`.
  const until = new Date(now.getTime() + 1);
  const recent = ticks
    .previousRuns(catchUp === "all" ? MAX_CATCH_UP_TICKS : 1, until)
    .filter((tick) => tick >= nextFireAt)
    .reverse();
  const latest = recent.at(-1);
  if (!latest) return { fire: [], next };
  if (catchUp === "all") return { fire: recent, next };
  if (catchUp === "latest") return { fire: [latest], next };
  return { fire: now.getTime() - latest.getTime() > MISSED_AFTER_MS ? [] : [latest], next };
}

export interface OverlapDecision {
  /** Ticks whose runs start now. */
  start: Date[];
  /** Ticks that wait for the running run to end (`queue`), oldest first. */
  queued: Date[];
  /** Ticks dropped because a run was going (`skip`) or the queue was full. */
  skipped: Date[];
}

/**
 * What the ticks that fire do while the schedule's previous run may still be going: `allow` starts
 * each; `skip` starts the newest when nothing runs and drops the others; `queue` appends them to the
 * queue (at most `MAX_CATCH_UP_TICKS`, the oldest dropped) and starts the first when nothing runs.
 *
 * @example applyOverlap("skip", [tick], [], true) // { start: [], queued: [], skipped: [tick] }
 */
export function applyOverlap(
  overlap: ScheduleOverlap,
  fire: Date[],
  queued: Date[],
  isRunning: boolean,
): OverlapDecision {
  if (overlap === "allow") return { start: fire, queued: [], skipped: [] };
  if (overlap === "skip") {
    const newest = fire.at(-1);
    if (isRunning || !newest) return { start: [], queued: [], skipped: fire };
    return { start: [newest], queued: [], skipped: fire.slice(0, -1) };
  }
  const waiting = [...queued, ...fire];
  const overflow = Math.max(0, waiting.length - MAX_CATCH_UP_TICKS);
  const skipped = waiting.slice(0, overflow);
  const kept = waiting.slice(overflow);
  if (isRunning || kept.length === 0) return { start: [], queued: kept, skipped };
  return { start: kept.slice(0, 1), queued: kept.slice(1), skipped };
}
