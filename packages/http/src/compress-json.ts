import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { MiddlewareHandler } from "hono";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Below this, compressing saves less than the headers and the CPU cost. */
const MIN_BYTES = 1024;
/** Brotli's default (11) is for files compressed once; 4 costs about what gzip does, for smaller answers. */
const BROTLI_QUALITY = 4;
const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/i;

/**
 * Compresses JSON answers of at least 1 KiB with brotli or gzip, whichever the client accepts
 * (brotli first), on zlib's thread pool. Anything else is left alone: event streams (written
 * straight to the socket), files and their range answers, and what is encoded already.
 *
 * @example app.use(requestId()); app.use(compressJson());
 */
export function compressJson(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const response = c.res;
    if (response === RESPONSE_ALREADY_SENT || c.req.method === "HEAD" || !response.body) return;
    if (response.headers.has("content-encoding")) return;
    if (!JSON_TYPE.test(response.headers.get("content-type") ?? "")) return;
    response.headers.append("vary", "Accept-Encoding");
    const encoding = acceptedEncoding(c.req.header("accept-encoding") ?? "");
    if (!encoding) return;
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length < MIN_BYTES) {
      c.res = new Response(body, response);
      return;
    }
    const compressed =
      encoding === "br"
        ? await brotli(body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            },
          })
        : await gzipped(body);
    const headers = new Headers(response.headers);
    headers.set("content-encoding", encoding);
    headers.set("content-length", String(compressed.length));
    c.res = new Response(compressed, { status: response.status, headers });
  };
}

/** `br` or `gzip` when the Accept-Encoding header allows it (a `q=0` refuses). */
function acceptedEncoding(header: string): "br" | "gzip" | undefined {
  const accepted = new Set<string>();
  for (const part of header.toLowerCase().split(",")) {
    const [name, ...parameters] = part.trim().split(";");
    const q = parameters.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name && (q === undefined || Number(q) > 0)) accepted.add(name.trim());
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return undefined;
}
