import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { loadStaticFile, type StaticFile, sendStaticFile } from "../studio/serve-studio.ts";
import { EMBED_SCRIPT_PATH, WEB_APP_PREFIX, WEB_APP_SCRIPT_PATH } from "./paths.ts";

export const widgetDistDir = fileURLToPath(new URL("../../../widget/dist", import.meta.url));

/** What the app pages need to know of an app; null when there is no app by that slug. */
export type AppPageLookup = (slug: string) => Promise<{ allowedOrigins: string[]; title?: string } | null>;

/**
 * The scripts are not content-hashed (a host site's snippet names /embed.js for good), so they are
 * cached briefly and revalidated by ETag: a new widget reaches every site within five minutes.
 */
const SCRIPT_CACHE = "public, max-age=300";

/** `https://host[:port]` (or http for local development): nothing that could end a CSP directive. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

/**
 * The web app page's Content-Security-Policy: scripts only from the builder (the page has no inline
 * script, and a model's answer is never parsed as HTML), requests only to the builder, images from the
 * builder or any https URL (run outputs), and framing only by the app's allowed origins.
 *
 * @example webAppPolicy(["https://shop.example"]) // "default-src 'none'; … frame-ancestors 'self' https://shop.example; …"
 */
export function webAppPolicy(allowedOrigins: readonly string[]): string {
  const ancestors = ["'self'", ...allowedOrigins.filter((origin) => ORIGIN.test(origin))];
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Our own styles: a constructed sheet, and a <style> only in browsers without constructed sheets.
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self' https: data:",
    `frame-ancestors ${ancestors.join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function shell(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${body}`;
}

/**
 * Serves what end users load: `GET /embed.js` (the widget, to any site), `GET /webapp.js`, and
 * `GET /a/{slug}` (the web app's page, under a strict Content-Security-Policy). The scripts come from
 * `distDir` (apps/widget/dist) with the brotli and gzip copies its build wrote.
 *
 * @example app.route("/", appPageRoutes({ findApp: (slug) => findAppBySlug(db, slug) }));
 */
export function appPageRoutes(options: { findApp: AppPageLookup; distDir?: string }) {
  const distDir = options.distDir ?? widgetDistDir;
  const router = new Hono();
  const files = new Map<string, Promise<StaticFile | null>>();
  // Read once: a rebuilt widget is served after a restart, as the studio's build is.
  const script = async (c: Context, name: string, headers: Record<string, string>) => {
    let file = files.get(name);
    if (!file) {
      file = loadStaticFile(join(distDir, name));
      files.set(name, file);
    }
    const loaded = await file;
    if (!loaded) {
      files.delete(name);
      return c.text(`// The widget has not been built: run npm run build -w apps/widget.\n`, 404, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "no-store",
      });
    }
    return sendStaticFile(c, loaded, SCRIPT_CACHE, { "x-content-type-options": "nosniff", ...headers });
  };

  router.get(EMBED_SCRIPT_PATH, (c) =>
    script(c, "embed.js", {
      // Any site may load the script (that is the point); the API decides which sites may use it.
      "access-control-allow-origin": "*",
      "cross-origin-resource-policy": "cross-origin",
    }),
  );
  router.get(WEB_APP_SCRIPT_PATH, (c) =>
    script(c, "webapp.js", { "cross-origin-resource-policy": "same-origin" }),
  );

  router.get(`${WEB_APP_PREFIX}:slug`, async (c) => {
    const app = await options.findApp(c.req.param("slug"));
    const headers = {
      "content-security-policy": webAppPolicy(app?.allowedOrigins ?? []),
      "x-content-type-options": "nosniff",
      "referrer-policy": "strict-origin-when-cross-origin",
      "cache-control": "no-cache",
    };
    if (!app) {
      return c.html(
        shell("App not found", "</head>\n<body><p>There is no app at this address.</p></body>\n</html>\n"),
        404,
        headers,
      );
    }
    return c.html(
      shell(
        app.title || "App",
        `<script src="${WEB_APP_SCRIPT_PATH}" defer></script>\n</head>\n<body><div id="app"></div><noscript>This app needs JavaScript.</noscript></body>\n</html>\n`,
      ),
      200,
      headers,
    );
  });
  return router;
}
