import { describe, expect, it } from "vitest";
import { createRouter, errorHandler, notFoundHandler } from "./app.ts";
import { ApiError } from "./errors.ts";
import { createLogger } from "./logger.ts";

/** A router whose log lines are kept as JSON objects. */
function appLogging() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: "test",
    level: "info",
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const router = createRouter();
  router.onError(errorHandler(logger));
  router.notFound(notFoundHandler);
  router.get("/outside", () => {
    throw new ApiError(502, "provider_unreachable", "The provider could not be reached.");
  });
  router.get("/bug", () => {
    throw new TypeError("cannot read properties of undefined");
  });
  return { router, lines };
}

describe("the error handler's log", () => {
  it("logs an outside service's failure (a 502 the code raised) as a warning with its code, without a stack", async () => {
    const { router, lines } = appLogging();
    const response = await router.request("/outside");
    expect(response.status).toBe(502);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, code: "provider_unreachable", status: 502 });
    expect(JSON.stringify(lines[0])).not.toContain("stack");
  });

  it("logs a bug (anything that is not an ApiError) as an unhandled error with its stack", async () => {
    const { router, lines } = appLogging();
    const response = await router.request("/bug");
    expect(response.status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: "unhandled error" });
    expect(JSON.stringify(lines[0])).toContain("cannot read properties of undefined");
    expect(JSON.stringify(lines[0])).toContain("stack");
  });
});
