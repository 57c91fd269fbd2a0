import { looseRequestObjects, type OpenApiDocument } from "@app/http/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createBuilderApp } from "./app.ts";

let builder: TestBuilder;
beforeAll(async () => {
  builder = await startTestBuilder();
});
afterAll(() => builder?.stop());

describe("the OpenAPI document", () => {
  it("covers every API route the app serves", async () => {
    const document = (await (await fetch(`${builder.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    const served = createBuilderApp(builder.deps)
      .app.routes.filter((route) => route.path.startsWith("/api/") && route.method !== "ALL")
      .filter((route) => !route.path.startsWith("/api/docs") && route.path !== "/api/openapi.json")
      .map((route) => `${route.method} ${route.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
    expect(served.length).toBeGreaterThan(30);
    const missing = [...new Set(served)].filter((route) => !documented.has(route));
    expect(missing).toEqual([]);
  });

  it("refuses unknown keys in every object a JSON request body can hold (additionalProperties: false), so none is dropped silently", async () => {
    const document = (await (await fetch(`${builder.url}/api/openapi.json`)).json()) as OpenApiDocument;
    // The auth routes are forwarded to better-auth, whose client libraries add fields of their own (callbackURL, …).
    expect(looseRequestObjects(document, ["/api/auth/"])).toEqual([]);
  });
});
