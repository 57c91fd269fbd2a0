import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createRouter } from "./app.ts";
import { compressJson } from "./compress-json.ts";

const big = { items: Array.from({ length: 100 }, (_, i) => ({ id: `item_${i}`, name: "a name" })) };

function app() {
  const router = createRouter();
  router.use(compressJson());
  router.get("/big", (c) => c.json(big));
  router.get("/small", (c) => c.json({ ok: true }));
  router.get("/text", (c) => c.text("x".repeat(5000)));
  router.get("/events", (c) =>
    c.body("data: x\n\n".repeat(500), 200, { "content-type": "text/event-stream" }),
  );
  return router;
}

describe("compressJson", () => {
  it("compresses a JSON answer of 1 KiB or more with brotli, else gzip, as the client accepts", async () => {
    const br = await app().request("/big", { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toContain("Accept-Encoding");
    expect(JSON.parse(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString())).toEqual(big);
    const gzip = await app().request("/big", { headers: { "accept-encoding": "gzip, br;q=0" } });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString())).toEqual(big);
  });

  it("leaves alone small answers, clients that accept neither, event streams and other types", async () => {
    const headers = { "accept-encoding": "gzip, br" };
    const small = await app().request("/small", { headers });
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(await small.json()).toEqual({ ok: true });
    const identity = await app().request("/big", { headers: { "accept-encoding": "identity" } });
    expect(identity.headers.get("content-encoding")).toBeNull();
    expect(await identity.json()).toEqual(big);
    for (const path of ["/events", "/text"]) {
      const response = await app().request(path, { headers });
      expect(response.headers.get("content-encoding"), path).toBeNull();
    }
  });
});
