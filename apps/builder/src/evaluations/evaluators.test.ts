import { describe, expect, it } from "vitest";
import { parseVerdict } from "./evaluators.ts";

describe("parseVerdict reads a judge's reply", () => {
  it.each([
    ['{"score": 0.8, "reason": "close"}', { score: 0.8, reason: "close" }],
    ['```json\n{"score": "0.25", "reason": "off"}\n```', { score: 0.25, reason: "off" }],
    [
      'Sure! Here is my grade: {"score": 7, "reason": "decent"} Hope it helps.',
      { score: 0.7, reason: "decent" },
    ],
    ['{"score": 85}', { score: 0.85, reason: null }],
    ["Score: 2/10, wrong.", { score: 0.2, reason: "Score: 2/10, wrong." }],
    ["score - 1", { score: 1, reason: "score - 1" }],
    ['{"score": -3}', { score: 0, reason: null }],
  ])("%s", (reply, verdict) => {
    expect(parseVerdict(reply)).toEqual(verdict);
  });

  it("finds no score in a reply without one", () => {
    expect(parseVerdict("I cannot grade this.")).toBeUndefined();
    expect(parseVerdict('{"grade": "A"}')).toBeUndefined();
  });
});
