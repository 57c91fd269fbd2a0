import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createRouter, errorHandler, notFoundHandler } from "./app.ts";
import { guardInput } from "./input-guard.ts";
import { createLogger } from "./logger.ts";

function app() {
  const router = createRouter();
  router.onError(errorHandler(createLogger({ service: "test", level: "silent" })));
  router.notFound(notFoundHandler);
  router.use(guardInput({ isBodyUnbounded: (path) => path === "/upload" }));
  router.get("/things/:id", (c) => c.json({ id: c.req.param("id"), q: c.req.query() }));
  router.post("/things", async (c) => c.json({ body: await c.req.json() }));
  router.post("/form", async (c) => c.json({ body: await c.req.parseBody() }));
  router.post("/upload", async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength }));
  return router;
}

const post = (body: string | Uint8Array<ArrayBuffer>, type = "application/json") => ({
  method: "POST",
  headers: { "content-type": type },
  body,
});

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; param?: string; details?: unknown[] } }).error;
}

describe("the input guard", () => {
  it("a NUL in a JSON string answers 422 naming the field, however deep", async () => {
    const response = await app().request("/things", post('{"a":{"list":["ok","x\\u0000y"]}}'));
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ code: "validation_failed", param: "a.list[1]" });
  });

  it("lone surrogates (high or low) answer 422; a pair (an emoji) passes", async () => {
    for (const escaped of ["\\ud800", "a\\udc00", "\\ud800x", "\\udfff\\ud800"]) {
      const response = await app().request("/things", post(`{"name":"${escaped}"}`));
      expect(response.status, escaped).toBe(422);
      expect(await errorOf(response)).toMatchObject({ param: "name" });
    }
    const emoji = await app().request("/things", post('{"name":"\\ud83d\\ude00"}'));
    expect(emoji.status).toBe(200);
    expect(await emoji.json()).toEqual({ body: { name: "😀" } });
  });

  it("a NUL in an object key is refused too", async () => {
    const response = await app().request("/things", post('{"meta":{"k\\u0000":1}}'));
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ param: "meta" });
  });

  it("invalid UTF-8 in a JSON body answers 400 invalid_json instead of becoming U+FFFD", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"name":"a'),
      0xff,
      0xfe,
      ...new TextEncoder().encode('"}'),
    ]);
    const response = await app().request("/things", post(bytes));
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: "invalid_json" });
  });

  it("a number a JSON number cannot carry exactly answers 422 naming it: out of range, or an integer a double would round", async () => {
    for (const [body, param, reason] of [
      ['{"n":1e400}', "n", /1e400 is out of range/],
      ['{"a":[1,{"n":-1E+309}]}', "a[1].n", /out of range/],
      [`{"n":${"9".repeat(400)}}`, "n", /out of range/],
      [
        '{"n":9007199254740993}',
        "n",
        /9007199254740993 is an integer .* cannot carry exactly \(it would become 9007199254740992\)/,
      ],
      ['{"n":-90071992547409930}', "n", /cannot carry exactly/],
      ["12345678901234567890", "body", /cannot carry exactly/],
    ] as const) {
      const response = await app().request("/things", post(body));
      expect(response.status, body).toBe(422);
      const error = (await response.json()) as { error: { code: string; param: string; message: string } };
      expect(error.error, body).toMatchObject({ code: "validation_failed", param });
      expect(error.error.message, body).toMatch(reason);
    }
  });

  it("numbers JSON carries pass unchanged: big floats, exponents, integers a double holds exactly, digits inside strings", async () => {
    const body =
      '{"max":9007199254740991,"min":-9007199254740991,"big":1.7976931348623157e308,"tiny":1e-400,' +
      '"exactly":100000000000000000000,"two53plus2":9007199254740994,' +
      '"float":12345678901234567890.5,"exp":1e300,"text":"12345678901234567890 and 1e400"}';
    const response = await app().request("/things", post(body));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ body: JSON.parse(body) });
  });

  it("a body that passes is read by the route unchanged", async () => {
    const response = await app().request("/things", post('{"name":"tab\\t and é and \\\\u0000 literally"}'));
    expect(await response.json()).toEqual({ body: { name: "tab\t and é and \\u0000 literally" } });
  });

  it("a NUL or invalid UTF-8 in a path parameter answers with the parameter's name", async () => {
    const nul = await app().request("/things/pay_%00x");
    expect(nul.status).toBe(422);
    expect(await errorOf(nul)).toMatchObject({ code: "validation_failed", param: "id" });
    const invalid = await app().request("/things/%ff");
    expect(invalid.status).toBe(400);
    expect(await errorOf(invalid)).toMatchObject({ code: "invalid_encoding", param: "id" });
    const surrogate = await app().request("/things/%ED%A0%80");
    expect(surrogate.status).toBe(400);
    const unrouted = await app().request("/nowhere/%00");
    expect(await errorOf(unrouted)).toMatchObject({ param: "path" });
  });

  it("a bad query value is named after its key; good percent-encoding passes", async () => {
    const nul = await app().request("/things/a?cursor=ab%00");
    expect(nul.status).toBe(422);
    expect(await errorOf(nul)).toMatchObject({ param: "cursor" });
    const invalid = await app().request("/things/a?x=1&cursor=%c3");
    expect(invalid.status).toBe(400);
    expect(await errorOf(invalid)).toMatchObject({ code: "invalid_encoding", param: "cursor" });
    const good = await app().request("/things/%C3%A9?q=a%20b+c");
    expect(await good.json()).toEqual({ id: "é", q: { q: "a b c" } });
  });

  it("form bodies are checked like queries", async () => {
    const response = await app().request("/form", post("name=a%00b", "application/x-www-form-urlencoded"));
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ param: "name" });
  });

  it("bodies of unbounded paths are never read by the guard", async () => {
    const response = await app().request("/upload", post('{"a":"\\u0000"}'));
    expect(await response.json()).toEqual({ bytes: 14 });
  });

  it("a body nested 100,000 levels deep is walked without overflowing the stack", async () => {
    const deep = `${"[".repeat(100_000)}"\\u0000"${"]".repeat(100_000)}`;
    const response = await app().request("/things", post(deep));
    expect(response.status).toBe(422);
  });

  it("validation errors still come from the route's schema when the input is clean", async () => {
    const router = app();
    router.openapi(
      createRoute({
        method: "post",
        path: "/typed",
        request: { body: { content: { "application/json": { schema: z.object({ n: z.number() }) } } } },
        responses: { 200: { description: "ok" } },
      }),
      (c) => c.body(null, 200),
    );
    const response = await router.request("/typed", post('{"n":"x"}'));
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatchObject({ param: "n" });
  });
});
