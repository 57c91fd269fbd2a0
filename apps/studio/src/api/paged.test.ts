import { describe, expect, it } from "vitest";
import { pagePath } from "./paged.ts";

describe("pagePath", () => {
  it("asks for the first page with the page size only", () => {
    expect(pagePath("/api/agents", 50, "")).toBe("/api/agents?limit=50");
  });

  it("adds the cursor of the last page, encoded, after a path's own query", () => {
    expect(pagePath("/api/webhooks/wh_1/deliveries?status=failed", 20, "a b/c")).toBe(
      "/api/webhooks/wh_1/deliveries?status=failed&limit=20&cursor=a%20b%2Fc",
    );
  });
});
