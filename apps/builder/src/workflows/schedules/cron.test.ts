import { describe, expect, it } from "vitest";
import { canonicalTimeZone, cronProblem, cronTicks, isoWithOffset } from "./cron.ts";

/** The next `count` ticks after `from`, as a person in the zone reads them. */
function next(cron: string, timezone: string, from: string, count = 5): string[] {
  return cronTicks(cron, timezone)
    .nextRuns(count, new Date(from))
    .map((tick) => isoWithOffset(tick, timezone));
}

// These pin croner's DST rules (Vixie cron's), which docs/workflows.md promises: after a croner
// upgrade, this file says whether they still hold.
describe("cron through croner, in a time zone", () => {
  it("Europe/Berlin spring forward: a daily 02:30, which does not exist on 29 March, runs at 03:00, the first time after the gap", () => {
    expect(next("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 3)).toEqual([
      "2026-03-29T03:00:00+02:00",
      "2026-03-30T02:30:00+02:00",
      "2026-03-31T02:30:00+02:00",
    ]);
  });

  it("Europe/Berlin spring forward: an hourly job has no 02:00 that night", () => {
    expect(next("0 * * * *", "Europe/Berlin", "2026-03-28T23:30:00Z", 3)).toEqual([
      "2026-03-29T01:00:00+01:00",
      "2026-03-29T03:00:00+02:00",
      "2026-03-29T04:00:00+02:00",
    ]);
  });

  it("Europe/Berlin fall back: a daily 02:30 runs once, at the first of the two 02:30s", () => {
    const ticks = next("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2);
    expect(ticks).toEqual(["2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"]);
  });

  it("Europe/Berlin fall back: an every-30-minutes job runs through both passes of the repeated hour", () => {
    expect(next("*/30 * * * *", "Europe/Berlin", "2026-10-24T23:45:00Z", 5)).toEqual([
      "2026-10-25T02:00:00+02:00",
      "2026-10-25T02:30:00+02:00",
      "2026-10-25T02:00:00+01:00",
      "2026-10-25T02:30:00+01:00",
      "2026-10-25T03:00:00+01:00",
    ]);
  });

  it("Asia/Jakarta has no DST: weekdays at 09:00 are 02:00 UTC, Friday then Monday", () => {
    expect(next("0 9 * * 1-5", "Asia/Jakarta", "2026-03-27T00:00:00Z", 3)).toEqual([
      "2026-03-27T09:00:00+07:00",
      "2026-03-30T09:00:00+07:00",
      "2026-03-31T09:00:00+07:00",
    ]);
    expect(cronTicks("0 9 * * 1-5", "Asia/Jakarta").next(new Date("2026-03-27T00:00:00Z"))).toEqual(
      new Date("2026-03-27T02:00:00Z"),
    );
  });

  it("reads a sixth field first as seconds, also across the spring-forward gap", () => {
    expect(next("*/15 * * * * *", "Europe/Berlin", "2026-03-29T00:59:50Z", 4)).toEqual([
      "2026-03-29T03:00:00+02:00",
      "2026-03-29T03:00:15+02:00",
      "2026-03-29T03:00:30+02:00",
      "2026-03-29T03:00:45+02:00",
    ]);
    // Five fields: at second 0.
    expect(next("* * * * *", "UTC", "2026-01-01T00:00:30Z", 1)).toEqual(["2026-01-01T00:01:00+00:00"]);
  });

  it("answers ticks strictly after and strictly before the time given", () => {
    const ticks = cronTicks("0 * * * * *", "UTC");
    const at = new Date("2026-01-01T12:00:00.000Z");
    expect(ticks.next(at)).toEqual(new Date("2026-01-01T12:01:00.000Z"));
    expect(ticks.previousRuns(2, at)).toEqual([
      new Date("2026-01-01T11:59:00.000Z"),
      new Date("2026-01-01T11:58:00.000Z"),
    ]);
  });
});

describe("cronProblem", () => {
  it("accepts five and six fields and the nicknames", () => {
    for (const cron of ["* * * * *", "*/5 * * * * *", "0 9 * * MON-FRI", "@hourly", "0 0 29 2 *"]) {
      expect(cronProblem(cron), cron).toBeUndefined();
    }
  });

  it("refuses other field counts, values out of range, dates and expressions that never match", () => {
    expect(cronProblem("* * * *")).toMatch(/five, six/);
    expect(cronProblem("* * * * * * *")).toMatch(/5 or 6 parts/);
    expect(cronProblem("61 * * * *")).toMatch(/minute: 61/);
    expect(cronProblem("2026-01-01T00:00:00")).toBe("must be a cron expression, not a date");
    expect(cronProblem("0 0 30 2 *")).toBe("never matches a date");
  });
});

describe("canonicalTimeZone and isoWithOffset", () => {
  it("knows IANA zones by any case and refuses made-up ones", () => {
    expect(canonicalTimeZone("europe/berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("Mars/Olympus_Mons")).toBeUndefined();
    expect(canonicalTimeZone("")).toBeUndefined();
  });

  it("writes the offset in force at that moment, half hours included", () => {
    const at = new Date("2026-03-29T01:00:00Z");
    expect(isoWithOffset(at, "Europe/Berlin")).toBe("2026-03-29T03:00:00+02:00");
    expect(isoWithOffset(new Date("2026-03-29T00:59:59Z"), "Europe/Berlin")).toBe(
      "2026-03-29T01:59:59+01:00",
    );
    expect(isoWithOffset(at, "UTC")).toBe("2026-03-29T01:00:00+00:00");
    expect(isoWithOffset(at, "Asia/Kolkata")).toBe("2026-03-29T06:30:00+05:30");
  });
});
