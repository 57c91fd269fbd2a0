import { Readable } from "node:stream";
import { createRouter, errorResponses, idParam } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { Storage } from "../storage/storage.ts";
import { StorageNotFoundError } from "../storage/storage.ts";
import { parseByteRange } from "./byte-range.ts";
import { fileBytes, rangeHeaders } from "./contract.ts";
import { FileErrors } from "./errors.ts";
import { findFile } from "./find-file.ts";

const getFileRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["files"],
  summary: "Download a stored file (generation outputs); supports `Range` so videos seek",
  request: {
    params: idParam,
    headers: rangeHeaders,
  },
  responses: {
    200: { description: "The whole file", content: { "application/octet-stream": { schema: fileBytes } } },
    206: {
      description: "The requested range",
      content: { "application/octet-stream": { schema: fileBytes } },
    },
    ...errorResponses(401, 404, 416),
  },
});

/**
 * `/api/files/{id}`: stored files served to their workspace only, whole or by one byte range.
 *
 * @example app.route("/api/files", fileRoutes(deps, storage));
 */
export function fileRoutes(deps: Pick<Deps, "db">, storage: Storage) {
  const router = createRouter<AppEnv>();
  router.openapi(getFileRoute, async (c) => {
    const file = await findFile(deps, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!file) throw FileErrors.FILE_NOT_FOUND();
    const range = parseByteRange(c.req.header("range"), file.sizeBytes);
    const headers: Record<string, string> = {
      "Content-Type": file.contentType,
      "Accept-Ranges": "bytes",
      "Cache-Control": "private, max-age=3600",
      // Stored files come from a third party: never let a browser run them as our own page.
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    };
    if (range.kind === "unsatisfiable")
      throw FileErrors.RANGE_NOT_SATISFIABLE({ headers: { "Content-Range": `bytes */${file.sizeBytes}` } });
    let stream: Readable;
    try {
      stream = await storage.get(file.storageKey, range.kind === "range" ? range : undefined);
    } catch (error) {
      if (error instanceof StorageNotFoundError) throw FileErrors.FILE_NOT_FOUND();
      throw error;
    }
    const body = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    if (range.kind === "range") {
      return new Response(body, {
        status: 206,
        headers: {
          ...headers,
          "Content-Range": `bytes ${range.start}-${range.end}/${file.sizeBytes}`,
          "Content-Length": String(range.end - range.start + 1),
        },
      });
    }
    return new Response(body, {
      status: 200,
      headers: { ...headers, "Content-Length": String(file.sizeBytes) },
    });
  });
  return router;
}
