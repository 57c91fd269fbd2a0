import { describe, expect, it } from "vitest";
import { cronTicks } from "./cron.ts";
import { applyOverlap, dueTicks, MAX_CATCH_UP_TICKS } from "./due-ticks.ts";

const hourly = cronTicks("0 * * * *", "UTC");
const everyMinute = cronTicks("* * * * *", "UTC");
const at = (iso: string) => new Date(iso);
const iso = (ticks: Date[]) => ticks.map((tick) => tick.toISOString());

describe("dueTicks", () => {
  it("fires the one due tick, on time or late within a minute, whatever the policy", () => {
    for (const catchUp of ["none", "latest", "all"] as const) {
      expect(dueTicks(hourly, at("2026-01-01T10:00:00Z"), catchUp, at("2026-01-01T10:00:40Z"))).toEqual({
        fire: [at("2026-01-01T10:00:00Z")],
        next: at("2026-01-01T11:00:00Z"),
      });
    }
  });

  it("after an outage of 2.5 hours: none drops the three missed ticks, latest fires 12:00, all fires each", () => {
    const nextFireAt = at("2026-01-01T10:00:00Z");
    const now = at("2026-01-01T12:30:00Z");
    expect(dueTicks(hourly, nextFireAt, "none", now)).toEqual({ fire: [], next: at("2026-01-01T13:00:00Z") });
    expect(iso(dueTicks(hourly, nextFireAt, "latest", now).fire)).toEqual(["2026-01-01T12:00:00.000Z"]);
    expect(iso(dueTicks(hourly, nextFireAt, "all", now).fire)).toEqual([
      "2026-01-01T10:00:00.000Z",
      "2026-01-01T11:00:00.000Z",
      "2026-01-01T12:00:00.000Z",
    ]);
  });

  it("a single missed tick: none drops it, latest and all fire it", () => {
    const nextFireAt = at("2026-01-01T10:00:00Z");
    const now = at("2026-01-01T10:30:00Z");
    expect(dueTicks(hourly, nextFireAt, "none", now).fire).toEqual([]);
    expect(dueTicks(hourly, nextFireAt, "latest", now).fire).toEqual([nextFireAt]);
    expect(dueTicks(hourly, nextFireAt, "all", now).fire).toEqual([nextFireAt]);
  });

  it("none still fires the latest tick when it is on time, after missing earlier ones", () => {
    const due = dueTicks(everyMinute, at("2026-01-01T10:00:00Z"), "none", at("2026-01-01T10:09:30Z"));
    expect(iso(due.fire)).toEqual(["2026-01-01T10:09:00.000Z"]);
    expect(due.next).toEqual(at("2026-01-01T10:10:00Z"));
  });

  it(`all fires at most the ${MAX_CATCH_UP_TICKS} most recent missed ticks`, () => {
    const due = dueTicks(everyMinute, at("2026-01-01T00:00:00Z"), "all", at("2026-01-01T05:00:10Z"));
    expect(due.fire).toHaveLength(MAX_CATCH_UP_TICKS);
    expect(due.fire[0]).toEqual(at("2026-01-01T03:21:00Z"));
    expect(due.fire.at(-1)).toEqual(at("2026-01-01T05:00:00Z"));
  });
});

describe("applyOverlap", () => {
  const [t1, t2, t3] = [at("2026-01-01T10:00:00Z"), at("2026-01-01T11:00:00Z"), at("2026-01-01T12:00:00Z")];

  it("allow starts every tick, run going or not", () => {
    expect(applyOverlap("allow", [t1, t2], [], true)).toEqual({ start: [t1, t2], queued: [], skipped: [] });
  });

  it("skip drops a tick while the previous run is going, and starts only the newest of several", () => {
    expect(applyOverlap("skip", [t1], [], true)).toEqual({ start: [], queued: [], skipped: [t1] });
    expect(applyOverlap("skip", [t1, t2, t3], [], false)).toEqual({
      start: [t3],
      queued: [],
      skipped: [t1, t2],
    });
  });

  it("queue keeps ticks while a run is going and starts the oldest when none is", () => {
    expect(applyOverlap("queue", [t2], [t1], true)).toEqual({ start: [], queued: [t1, t2], skipped: [] });
    expect(applyOverlap("queue", [t3], [t1, t2], false)).toEqual({
      start: [t1],
      queued: [t2, t3],
      skipped: [],
    });
    expect(applyOverlap("queue", [], [t2], false)).toEqual({ start: [t2], queued: [], skipped: [] });
  });

  it(`queue holds at most ${MAX_CATCH_UP_TICKS} ticks, dropping the oldest`, () => {
    const waiting = Array.from({ length: MAX_CATCH_UP_TICKS }, (_, i) => new Date(t1.getTime() + i * 60_000));
    const decision = applyOverlap("queue", [t3], waiting, true);
    expect(decision.skipped).toEqual([t1]);
    expect(decision.queued).toHaveLength(MAX_CATCH_UP_TICKS);
    expect(decision.queued.at(-1)).toEqual(t3);
  });
});
