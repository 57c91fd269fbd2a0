import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { getMimeType } from "hono/utils/mime";
import { isAppPagePath } from "../app-pages/paths.ts";

export const studioDistDir = fileURLToPath(new URL("../../../studio/dist", import.meta.url));

export type Encoding = "br" | "gzip";
const SUFFIX: Record<Encoding, string> = { br: ".br", gzip: ".gz" };

/** A built file and the compressed copies the build wrote beside it (`.br`, `.gz`). */
export interface StaticFile {
  type: string;
  identity: Buffer;
  encoded: Partial<Record<Encoding, Buffer>>;
  etag: string;
}

/**
 * The encoding to answer with, from an Accept-Encoding header and the copies at hand: the highest
 * q-value wins, brotli on a tie (smaller); `q=0` refuses one, `*` stands for any not named.
 *
 * @example pickEncoding("gzip, deflate, br", ["br", "gzip"]) // "br"
 */
export function pickEncoding(header: string | undefined, available: Encoding[]): Encoding | null {
  if (!header || available.length === 0) return null;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params
      .map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1])
      .find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  let best: Encoding | null = null;
  let bestWeight = 0;
  for (const encoding of available) {
    const weight = weights.get(encoding) ?? weights.get("*") ?? 0;
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/**
 * Reads a built file and its `.br` / `.gz` copies; null when the file is absent.
 *
 * @example const file = await loadStaticFile("apps/widget/dist/embed.js");
 */
export async function loadStaticFile(path: string): Promise<StaticFile | null> {
  const identity = await readOptional(path);
  if (!identity) return null;
  const encoded: StaticFile["encoded"] = {};
  for (const encoding of ["br", "gzip"] as const) {
    const copy = await readOptional(path + SUFFIX[encoding]);
    if (copy) encoded[encoding] = copy;
  }
  return {
    type: getMimeType(path) ?? "application/octet-stream",
    identity,
    encoded,
    etag: `"${createHash("sha256").update(identity).digest("base64url").slice(0, 22)}"`,
  };
}

/**
 * Answers a file in the encoding the client asked for (every answer varies by Accept-Encoding), with
 * its ETag (a 304 when it matches) and any `extraHeaders`.
 *
 * @example return sendStaticFile(c, file, "public, max-age=300", { "x-content-type-options": "nosniff" });
 */
export function sendStaticFile(
  c: Context,
  file: StaticFile,
  cacheControl: string,
  extraHeaders: Record<string, string> = {},
) {
  const encoding = pickEncoding(c.req.header("accept-encoding"), Object.keys(file.encoded) as Encoding[]);
  const body = encoding ? (file.encoded[encoding] as Buffer) : file.identity;
  const headers: Record<string, string> = {
    ...extraHeaders,
    "content-type": file.type,
    "cache-control": cacheControl,
    vary: "Accept-Encoding",
    etag: file.etag,
  };
  if (encoding) headers["content-encoding"] = encoding;
  if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, headers);
  headers["content-length"] = String(body.length);
  return c.body(new Uint8Array(body), 200, headers);
}

/**
 * Serves the studio's built files, and its index.html for any other GET that a browser navigates to
 * (the studio routes in the page). The build writes brotli and gzip copies of each text file; they
 * go out by Accept-Encoding, so nothing is compressed per request. Hashed assets are cached for a
 * year as immutable; index.html is revalidated every time (its ETag makes that a 304).
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
  const index: StaticFile = {
    type: "text/html; charset=utf-8",
    identity: readFileSync(indexFile),
    encoded: Object.fromEntries(
      (["br", "gzip"] as const)
        .filter((encoding) => existsSync(indexFile + SUFFIX[encoding]))
        .map((encoding) => [encoding, readFileSync(indexFile + SUFFIX[encoding])]),
    ),
    etag: "",
  };
  index.etag = `"${createHash("sha256").update(index.identity).digest("base64url").slice(0, 22)}"`;

  const assetsDir = resolve(distDir, "assets");
  // Hashed names never change content, so a file read once is kept; the build is a few hundred KB.
  const cache = new Map<string, StaticFile>();
  router.get("/assets/*", async (c, next) => {
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path.slice("/assets/".length));
    } catch {
      return next();
    }
    const path = resolve(assetsDir, relative);
    // No way out of the assets folder, and the compressed copies are not addressable on their own.
    if (!path.startsWith(assetsDir + sep) || path.endsWith(".br") || path.endsWith(".gz")) return next();
    let file = cache.get(path);
    if (!file) {
      const loaded = await loadStaticFile(path);
      if (!loaded) return next();
      file = loaded;
      cache.set(path, file);
    }
    return sendStaticFile(c, file, "public, max-age=31536000, immutable");
  });
  router.get("*", async (c, next) => {
    // API routes mounted after this one, unknown assets and the apps' pages (answered by their own
    // routes, mounted before) must fall through to their handlers or the 404.
    if (c.req.path.startsWith("/api/") || c.req.path.startsWith("/assets/") || isAppPagePath(c.req.path))
      return next();
    return sendStaticFile(c, index, "no-cache");
  });
  return router;
}
