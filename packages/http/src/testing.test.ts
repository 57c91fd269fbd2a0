import { describe, expect, it } from "vitest";
import { type OpenApiDocument, openApiConformance } from "./testing.ts";

const document: OpenApiDocument = {
  paths: {
    "/things/{id}": {
      get: {
        responses: {
          "200": {
            content: {
              "application/json": {
                schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
              },
            },
          },
          "404": { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        },
      },
    },
    "/things/new": { get: { responses: { "204": {} } } },
  },
  components: {
    schemas: {
      Error: {
        type: "object",
        properties: {
          error: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
        },
        required: ["error"],
      },
    },
  },
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("the OpenAPI conformance check", () => {
  const check = openApiConformance(document);

  it("accepts a documented status with a body that matches, refs resolved", async () => {
    expect(await check("GET", "/things/t1", json(200, { id: "t1" }))).toBeUndefined();
    expect(await check("GET", "/things/t1?x=1", json(404, { error: { code: "not_found" } }))).toBeUndefined();
  });

  it("names an undocumented status and a body that does not match", async () => {
    expect(await check("GET", "/things/t1", json(500, {}))).toMatch(
      /GET \/things\/\{id\} → 500: the status is not in the document/,
    );
    expect(await check("GET", "/things/t1", json(200, { id: 5 }))).toMatch(/does not match/);
    expect(await check("GET", "/things/t1", json(404, { message: "x" }))).toMatch(/does not match/);
  });

  it("prefers the literal path over a template and leaves undocumented paths alone", async () => {
    expect(await check("GET", "/things/new", new Response(null, { status: 204 }))).toBeUndefined();
    expect(await check("GET", "/elsewhere", json(500, {}))).toBeUndefined();
  });
});
