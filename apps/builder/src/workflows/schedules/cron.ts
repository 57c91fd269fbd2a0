import { Cron } from "croner";

/**
 * Cron through croner (docs/workflows.md, "Schedules", says why this library): five fields, or six
 * with seconds first, evaluated in an IANA time zone with Vixie cron's DST rules.
 */

/** Compiled expressions, by `cron` and zone: compiling costs more than finding a next time. */
const compiled = new Map<string, Cron>();
const COMPILED_CACHE_SIZE = 2_000;

/** A cron expression bound to a time zone: the ticks of a schedule. */
export interface CronTicks {
  /** The first tick strictly after `after`, or null when there is none (`0 0 30 2 *`). */
  next(after: Date): Date | null;
  /** Up to `count` ticks strictly after `after`, in order. */
  nextRuns(count: number, after: Date): Date[];
  /** Up to `count` ticks strictly before `before`, newest first. */
  previousRuns(count: number, before: Date): Date[];
}

/**
 * The ticks of `cron` in `timezone`; throws when either is invalid (`cronProblem` and
 * `timeZoneProblem` say why first).
 *
 * @example cronTicks("0 9 * * 1-5", "Asia/Jakarta").next(new Date("2026-03-27T00:00:00Z")) // 2026-03-27T02:00:00.000Z
 */
export function cronTicks(cron: string, timezone: string): CronTicks {
  const key = `${cron}\u0000${timezone}`;
  let job = compiled.get(key);
  if (!job) {
    job = compile(cron, timezone);
    if (compiled.size >= COMPILED_CACHE_SIZE) {
      const oldest = compiled.keys().next().value;
      if (oldest !== undefined) compiled.delete(oldest);
    }
    compiled.set(key, job);
  }
  const cronJob = job;
  return {
    next: (after) => cronJob.nextRun(after) ?? null,
    nextRuns: (count, after) => cronJob.nextRuns(count, after),
    previousRuns: (count, before) => cronJob.previousRuns(count, before),
  };
}

function compile(cron: string, timezone: string): Cron {
  // `paused`: the job is only evaluated, never scheduled on a timer of its own.
  return new Cron(cron, { timezone, mode: "5-or-6-parts", paused: true });
}

/**
 * Why `cron` is not a schedule this API accepts, or undefined when it is: the library's own message
 * for a malformed field, and ours for a date (croner reads an ISO time as a one-off job) and for an
 * expression that never matches a day (`0 0 30 2 *`).
 *
 * @example cronProblem("61 * * * *") // "CronPattern: Invalid value for minute: 61"
 */
export function cronProblem(cron: string): string | undefined {
  let job: Cron;
  try {
    job = compile(cron, "UTC");
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (job.getPattern() === undefined) return "must be a cron expression, not a date";
  // Without a year field an expression repeats, so one that matches no time after 1970 never will.
  if (job.nextRun(new Date(0)) === null) return "never matches a date";
  return undefined;
}

/**
 * The zone's canonical IANA name (`europe/berlin` → `Europe/Berlin`), or undefined when the runtime's
 * time zone data does not know it.
 *
 * @example canonicalTimeZone("Asia/Jakarta") // "Asia/Jakarta"
 */
export function canonicalTimeZone(timezone: string): string | undefined {
  if (timezone.trim() === "" || timezone.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * `at` as ISO 8601 in `timezone`, with the offset in force then: what a person in that zone reads.
 *
 * @example isoWithOffset(new Date("2026-03-29T01:00:00Z"), "Europe/Berlin") // "2026-03-29T03:00:00+02:00"
 */
export function isoWithOffset(at: Date, timezone: string): string {
  let format = offsetFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "longOffset",
    });
    offsetFormats.set(timezone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]));
  // "GMT+02:00", or "GMT" alone at offset zero.
  const offset = (parts.timeZoneName ?? "GMT").replace("GMT", "") || "+00:00";
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
