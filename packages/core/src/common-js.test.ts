import { describe, expect, it } from "vitest";
import { commonJsExports } from "./common-js.ts";

describe("commonJsExports", () => {
  it("reads a split bundle chunk's exports from its default export", () => {
    class Agent {}
    const chunk = { default: { Agent, fetch: () => undefined } };
    expect(commonJsExports(chunk as unknown as { Agent: typeof Agent }).Agent).toBe(Agent);
  });

  it("reads Node's own CommonJS interop, which carries the exports as default and by name", async () => {
    const namespace = await import("node:path");
    expect(commonJsExports(namespace).join("a", "b")).toBe("a/b");
  });

  it("returns an ES module namespace without a default export as it is", () => {
    const namespace = { S3Client: class {} };
    expect(commonJsExports(namespace)).toBe(namespace);
  });
});
