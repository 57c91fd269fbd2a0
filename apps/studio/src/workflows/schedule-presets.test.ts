import { describe, expect, it } from "vitest";
import { presetCron, presetOf } from "./schedule-presets.ts";

describe("schedule presets", () => {
  it("write the cron of each preset, with the chosen time", () => {
    expect(presetCron("every-minute", "09:00")).toBe("* * * * *");
    expect(presetCron("hourly", "09:00")).toBe("0 * * * *");
    expect(presetCron("daily", "07:05")).toBe("5 7 * * *");
    expect(presetCron("weekdays", "18:30")).toBe("30 18 * * 1-5");
  });

  it("recognise a preset's cron again, and call anything else custom", () => {
    expect(presetOf("5 7 * * *")).toEqual({ preset: "daily", time: "07:05" });
    expect(presetOf("30 18 * * 1-5")).toEqual({ preset: "weekdays", time: "18:30" });
    expect(presetOf("0 * * * *").preset).toBe("hourly");
    expect(presetOf("* * * * * *").preset).toBe("custom");
    expect(presetOf("*/5 * * * *").preset).toBe("custom");
  });
});
