import { describe, expect, it } from "vitest";
import { newId } from "./ids.ts";

describe("newId", () => {
  it("answers distinct ids that sort by creation time, across refills of the random pool", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => newId("run", 1_700_000_000_000 + i));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^run_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it("does not repeat the random part within one millisecond", () => {
    const ids = Array.from({ length: 1_000 }, () => newId("x", 0));
    expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(ids.length);
  });
});
