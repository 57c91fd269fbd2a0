import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";

export const studioDistDir = fileURLToPath(new URL("../../../studio/dist", import.meta.url));

/**
 * Serves the studio's built files, and its index.html for any other GET that a browser navigates to
 * (the studio routes in the page). Hashed assets are cached for a year; index.html never.
 */
export function studioRoutes(distDir: string = studioDistDir) {
  const router = new Hono();
  const indexFile = join(distDir, "index.html");
  if (!existsSync(indexFile)) {
    router.get("/", (c) =>
      c.html(
        "<!doctype html><title>Builder</title><p>The studio has not been built. Run <code>npm run build -w apps/studio</code>, or use the API at <a href='/api/docs'>/api/docs</a>.</p>",
      ),
    );
    return router;
  }
  const indexHtml = readFileSync(indexFile, "utf8");
  router.use(
    "/assets/*",
    serveStatic({
      root: distDir,
      onFound: (_path, c) => {
        c.header("Cache-Control", "public, max-age=31536000, immutable");
      },
    }),
  );
  router.get("*", async (c, next) => {
    // API routes mounted after this one, and unknown assets, must fall through to their handlers or the 404.
    if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/assets/")) return next();
    c.header("Cache-Control", "no-cache");
    return c.html(indexHtml);
  });
  return router;
}
