import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pickEncoding, studioRoutes } from "./serve-studio.ts";

const SCRIPT = `console.log(${JSON.stringify("studio ".repeat(200))});\n`;
const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>`;

let dist: string;
let routes: ReturnType<typeof studioRoutes>;

beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), "studio-dist-"));
  mkdirSync(join(dist, "assets"));
  // What the studio's build writes (apps/studio/precompress.ts): each text file and its two copies.
  for (const [path, content] of [
    ["assets/index-abc123.js", SCRIPT],
    ["index.html", INDEX],
  ] as const) {
    writeFileSync(join(dist, path), content);
    writeFileSync(join(dist, `${path}.br`), brotliCompressSync(content));
    writeFileSync(join(dist, `${path}.gz`), gzipSync(content));
  }
  writeFileSync(join(dist, "assets", "logo-def456.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dist, "secret.txt"), "outside the assets folder");
  routes = studioRoutes(dist);
});
afterAll(() => rmSync(dist, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) => routes.request(path, { headers });

describe("the studio's static files", () => {
  it("sends the brotli copy to a browser that accepts it, cached as immutable", async () => {
    const response = await get("/assets/index-abc123.js", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(body.length);
    expect(body.length).toBeLessThan(SCRIPT.length);
    expect(brotliDecompressSync(body).toString()).toBe(SCRIPT);
  });

  it("sends gzip when brotli is not accepted, and the plain file when nothing is", async () => {
    const gzip = await get("/assets/index-abc123.js", { "accept-encoding": "gzip" });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString()).toBe(SCRIPT);

    const plain = await get("/assets/index-abc123.js");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    expect(await plain.text()).toBe(SCRIPT);
  });

  it("honours q-values: a refused or less wanted encoding is not sent", async () => {
    const refused = await get("/assets/index-abc123.js", { "accept-encoding": "br;q=0, gzip;q=0.5" });
    expect(refused.headers.get("content-encoding")).toBe("gzip");
    const preferred = await get("/assets/index-abc123.js", { "accept-encoding": "br;q=0.4, gzip;q=0.9" });
    expect(preferred.headers.get("content-encoding")).toBe("gzip");
    expect(pickEncoding("*", ["br", "gzip"])).toBe("br");
    expect(pickEncoding("identity", ["br", "gzip"])).toBeNull();
    expect(pickEncoding("br", ["gzip"])).toBeNull();
  });

  it("serves index.html compressed for every studio path, never cached without revalidation", async () => {
    for (const path of ["/", "/workflows/wf_1"]) {
      const response = await get(path, { "accept-encoding": "gzip, br" });
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-encoding")).toBe("br");
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString()).toBe(INDEX);
    }
    const first = await get("/");
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^".+"$/);
    const again = await get("/", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("sends images as they are, and 404s unknown assets, the copies themselves and paths out of assets", async () => {
    const png = await get("/assets/logo-def456.png", { "accept-encoding": "br, gzip" });
    expect(png.status).toBe(200);
    expect(png.headers.get("content-encoding")).toBeNull();
    expect(png.headers.get("content-type")).toBe("image/png");

    for (const path of [
      "/assets/missing-000.js",
      "/assets/index-abc123.js.br",
      "/assets/..%2Fsecret.txt",
      "/assets/%E0%A4%A",
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    // The URL parser resolves an encoded "..": the path leaves /assets/ and gets the page, not the file.
    expect(await (await get("/assets/%2e%2e/secret.txt")).text()).toBe(INDEX);
  });
});
