import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
};

const assetDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/**
 * A browsable page for an OpenAPI document, served from the installed swagger-ui-dist
 * (no CDN, so it works offline).
 *
 * @example app.route("/api/docs", apiDocs({ specUrl: "/api/openapi.json", title: "Builder API" }))
 */
export function apiDocs(options: { specUrl: string; title: string }) {
  const router = new Hono();
  router.get("/", (c) => {
    const base = c.req.path.endsWith("/") ? c.req.path : `${c.req.path}/`;
    return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${base}assets/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="${base}assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: ${JSON.stringify(options.specUrl)}, dom_id: "#docs", withCredentials: true });</script>
</body></html>`);
  });
  router.get("/assets/:file", async (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.notFound();
    const bytes = await readFile(join(assetDir, file));
    return c.body(bytes, 200, { "content-type": type, "cache-control": "public, max-age=86400" });
  });
  return router;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
