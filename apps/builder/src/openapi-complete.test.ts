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
    const document = (await (await fetch(`${builder.url}/api/openapi.json`)).json()) as JsonSchema & {
      paths: Record<string, Record<string, { requestBody?: JsonSchema }>>;
    };
    const open = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      // Forwarded to better-auth, whose client libraries add fields of their own (callbackURL, …).
      if (path.startsWith("/api/auth/")) continue;
      for (const [method, operation] of Object.entries(item)) {
        const content = (operation.requestBody?.content ?? {}) as Record<string, { schema?: JsonSchema }>;
        const schema = content["application/json"]?.schema;
        if (schema) openObjects(document, schema, `${method.toUpperCase()} ${path}`, open, new Set());
      }
    }
    expect([...open]).toEqual([]);
  });
});

type JsonSchema = { [key: string]: unknown };

/** Where an object schema under `schema` leaves additionalProperties unsaid (zod then drops unknown keys). */
function openObjects(
  document: JsonSchema,
  schema: JsonSchema,
  at: string,
  found: Set<string>,
  seen: Set<string>,
): void {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    if (seen.has(ref)) return;
    const name = ref.split("/").at(-1) ?? "";
    const components = (document.components as { schemas: Record<string, JsonSchema> }).schemas;
    const target = components[name];
    if (target) openObjects(document, target, `${at} (${name})`, found, new Set([...seen, ref]));
    return;
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  // An alternative that only narrows properties (a cross-field rule's `anyOf`) has no type of its own.
  if (schema.type === "object" && schema.additionalProperties === undefined) found.add(at);
  for (const [name, child] of Object.entries(properties ?? {}))
    openObjects(document, child, `${at}.${name}`, found, seen);
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    for (const [i, child] of ((schema[key] as JsonSchema[] | undefined) ?? []).entries())
      openObjects(document, child, `${at}|${i}`, found, seen);
  }
  if (schema.items && typeof schema.items === "object")
    openObjects(document, schema.items as JsonSchema, `${at}[]`, found, seen);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object")
    openObjects(document, schema.additionalProperties as JsonSchema, `${at}{}`, found, seen);
}
