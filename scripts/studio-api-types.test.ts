import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_TYPES_FILE, builderOpenApiDocument, renderApiTypes, typeToString } from "./studio-api-types.ts";

describe("the studio's generated API types", () => {
  it("match the builder's OpenAPI document (run `npm run api-types` after changing a contract)", async () => {
    const expected = renderApiTypes(await builderOpenApiDocument());
    expect(readFileSync(API_TYPES_FILE, "utf8")).toBe(expected);
  }, 60_000);
});

describe("typeToString", () => {
  it("makes a property optional only when the schema does not require it", () => {
    const type = typeToString({
      type: "object",
      properties: { id: { type: "string" }, note: { type: ["string", "null"] } },
      required: ["id"],
    });
    expect(type).toBe("{\n  id: string;\n  note?: string | null;\n}");
  });

  it("names references, intersects allOf and unions oneOf", () => {
    expect(
      typeToString({ allOf: [{ $ref: "#/components/schemas/ApiKey" }, { type: "object", properties: {} }] }),
    ).toBe("ApiKey & Record<string, unknown>");
    expect(typeToString({ oneOf: [{ const: "a" }, { type: "integer" }] })).toBe('"a" | number');
    expect(typeToString({ type: "array", items: { enum: ["x", "y"] } })).toBe('("x" | "y")[]');
  });

  it("brackets a union of objects before making it an array, so every member is an item", () => {
    const item = (name: string) => ({
      type: "object",
      properties: { [name]: { type: "string" } },
      required: [name],
    });
    expect(typeToString({ type: "array", items: { oneOf: [item("a"), item("b")] } })).toBe(
      "({\n  a: string;\n} | {\n  b: string;\n})[]",
    );
    expect(typeToString({ type: "array", items: item("a") })).toBe("{\n  a: string;\n}[]");
  });

  it("ignores union members that only constrain which properties are present", () => {
    const type = typeToString({
      type: "object",
      properties: { token: { type: "string" } },
      anyOf: [{ required: ["token"] }, { not: { required: ["token"] } } as never],
    });
    expect(type).toBe("{\n  token?: string;\n}");
  });

  it("keeps a nullable enum's null", () => {
    expect(typeToString({ type: ["string", "null"], enum: ["on", "off"] })).toBe('"on" | "off" | null');
  });
});
