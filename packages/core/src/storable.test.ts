import { describe, expect, it } from "vitest";
import { storableJson, toStorable, toStorableText } from "./storable.ts";

describe("the one rule for run-time text PostgreSQL cannot store", () => {
  it("replaces NUL and each unpaired surrogate with U+FFFD and keeps pairs (emoji)", () => {
    expect(toStorableText("a\u0000b\u0000")).toBe("a\uFFFDb\uFFFD");
    expect(toStorableText("x\ud800y\udc00z")).toBe("x\uFFFDy\uFFFDz");
    expect(toStorableText("\udc00\ud800")).toBe("\uFFFD\uFFFD");
    expect(toStorableText("ok 😀")).toBe("ok 😀");
  });

  it("walks JSON-like values, keys included, and answers the same object when nothing changed", () => {
    const clean = { a: ["x", { b: 1 }], when: new Date(0) };
    expect(toStorable(clean)).toBe(clean);
    const when = new Date(0);
    expect(toStorable({ "k\u0000": ["\ud800", 2, null], when, bytes: new Uint8Array([0]) })).toEqual({
      "k\uFFFD": ["\uFFFD", 2, null],
      when,
      bytes: new Uint8Array([0]),
    });
  });

  it("storableJson is JSON.stringify whose output a jsonb column accepts", () => {
    expect(storableJson({ a: "b" })).toBe('{"a":"b"}');
    expect(storableJson({ a: "b\u0000", c: "\ud83d" })).toBe('{"a":"b\uFFFD","c":"\uFFFD"}');
    expect(storableJson({ a: "\\u0000 written out" })).toBe(JSON.stringify({ a: "\\u0000 written out" }));
  });
});
