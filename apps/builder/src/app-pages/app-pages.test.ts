import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studioRoutes } from "../studio/serve-studio.ts";
import { type AppPageLookup, appPageRoutes, webAppPolicy } from "./routes.ts";

const EMBED = `(()=>{${"document.body.append('widget');".repeat(40)}})();\n`;
const WEBAPP = `(()=>{${"document.body.append('webapp');".repeat(40)}})();\n`;

let dist: string;
let studioDist: string;
const lookups: string[] = [];
const findApp: AppPageLookup = async (slug) => {
  lookups.push(slug);
  if (slug === "support")
    return {
      allowedOrigins: ["https://shop.example", "https://shop.example:8443"],
      title: 'Help & "Support" <b>',
    };
  if (slug === "sneaky") return { allowedOrigins: ["https://ok.example", "https://x.example; script-src *"] };
  return null;
};
let routes: ReturnType<typeof appPageRoutes>;

beforeAll(() => {
  dist = mkdtempSync(join(tmpdir(), "widget-dist-"));
  // What apps/widget/build.ts writes: each script and its two copies.
  for (const [name, content] of [
    ["embed.js", EMBED],
    ["webapp.js", WEBAPP],
  ] as const) {
    writeFileSync(join(dist, name), content);
    writeFileSync(join(dist, `${name}.br`), brotliCompressSync(content));
    writeFileSync(join(dist, `${name}.gz`), gzipSync(content));
  }
  studioDist = mkdtempSync(join(tmpdir(), "studio-dist-"));
  mkdirSync(join(studioDist, "assets"));
  writeFileSync(join(studioDist, "index.html"), "<!doctype html><div id=root></div>");
  routes = appPageRoutes({ findApp, distDir: dist });
});
afterAll(() => {
  rmSync(dist, { recursive: true, force: true });
  rmSync(studioDist, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => routes.request(path, { headers });

describe("the widget's script", () => {
  it("goes to any site brotli-compressed, cacheable for five minutes and revalidated by its ETag", async () => {
    const response = await get("/embed.js", {
      "accept-encoding": "gzip, deflate, br",
      origin: "https://x.example",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString()).toBe(EMBED);

    const etag = response.headers.get("etag") ?? "";
    expect(etag).toMatch(/^".+"$/);
    const again = await get("/embed.js", { "if-none-match": etag, "accept-encoding": "br" });
    expect(again.status).toBe(304);
    const gzip = await get("/embed.js", { "accept-encoding": "gzip" });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
  });

  it("serves the web app's script for its own pages only (no cross-origin use)", async () => {
    const response = await get("/webapp.js", { "accept-encoding": "br" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString()).toBe(WEBAPP);
  });

  it("says how to build it when it has not been built, as JavaScript a page can load without error", async () => {
    const empty = mkdtempSync(join(tmpdir(), "widget-empty-"));
    try {
      const response = await appPageRoutes({ findApp, distDir: empty }).request("/embed.js");
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect(await response.text()).toContain("npm run build -w apps/widget");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("the web app's page", () => {
  it("is a small shell under a strict Content-Security-Policy framed only by the app's allowed origins", async () => {
    const response = await get("/a/support");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
        "img-src 'self' https: data:; frame-ancestors 'self' https://shop.example https://shop.example:8443; " +
        "base-uri 'none'; form-action 'none'",
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const html = await response.text();
    expect(html).toContain('<script src="/webapp.js" defer></script>');
    expect(html).toContain('<div id="app"></div>');
    expect(html).toContain("<title>Help &#38; &#34;Support&#34; &#60;b&#62;</title>");
    // No inline script: script-src 'self' would refuse it.
    expect(html).not.toMatch(/<script>/);
    expect(lookups).toContain("support");
  });

  it("answers 404 for an unknown app, under the same policy", async () => {
    const response = await get("/a/nobody");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'self';");
    expect(await response.text()).toContain("There is no app at this address.");
  });

  it("never lets a stored origin add a directive to the policy", async () => {
    const response = await get("/a/sneaky");
    expect(response.headers.get("content-security-policy")).toContain(
      "frame-ancestors 'self' https://ok.example;",
    );
    expect(webAppPolicy(["https://a.example", "javascript:alert(1)", "https://b.example/path"])).toContain(
      "frame-ancestors 'self' https://a.example;",
    );
  });
});

describe("beside the studio", () => {
  it("the studio's catch-all lets the apps' paths through instead of answering its index.html", async () => {
    const studio = studioRoutes(studioDist);
    for (const path of ["/a/support", "/embed.js", "/webapp.js"])
      expect((await studio.request(path)).status, path).toBe(404);
    expect((await studio.request("/agents")).status).toBe(200);
  });
});
