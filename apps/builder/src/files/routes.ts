import { Readable } from "node:stream";
import { createRouter, errorResponses, idParam } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { Storage } from "../storage/storage.ts";
import { StorageNotFoundError } from "../storage/storage.ts";
import { parseByteRange } from "./byte-range.ts";
import { fileBytes, rangeHeaders, signedFileQuery } from "./contract.ts";
import { FileErrors } from "./errors.ts";
import { findFile, findFileById } from "./find-file.ts";
import type { StoredFileRow } from "./schema.ts";
import { isSignedFileUrlValid } from "./signed-file-url.ts";

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
    return serveFile(storage, file, c.req.header("range"));
  });
  return router;
}

/** A stored file's bytes, whole or the one range asked for, under headers that never let it run as a page. */
async function serveFile(
  storage: Storage,
  file: StoredFileRow,
  rangeHeader: string | undefined,
): Promise<Response> {
  const range = parseByteRange(rangeHeader, file.sizeBytes);
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
}

const signedFileRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["files"],
  summary: "Download a stored file by a signed link (no sign-in; the link expires)",
  description: "Links of this kind appear in the outputs an app's end users see; they last 24 hours.",
  security: [],
  request: { params: idParam, query: signedFileQuery, headers: rangeHeaders },
  responses: {
    200: { description: "The whole file", content: { "application/octet-stream": { schema: fileBytes } } },
    206: {
      description: "The requested range",
      content: { "application/octet-stream": { schema: fileBytes } },
    },
    ...errorResponses(404, 416),
  },
});

/**
 * `/api/public/files/{id}?expires&signature`: a stored file by a signed link, for people outside the
 * workspace (an app's end users). A wrong, expired or missing signature is a plain 404.
 *
 * @example app.route("/api/public/files", publicFileRoutes(deps, storage));
 */
export function publicFileRoutes(deps: Pick<Deps, "db" | "clock" | "config">, storage: Storage) {
  const router = createRouter<AppEnv>();
  router.openapi(signedFileRoute, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const link = { expires: Number(query.expires), signature: query.signature };
    if (!isSignedFileUrlValid(deps.config.secretKey, id, link, deps.clock.now()))
      throw FileErrors.FILE_NOT_FOUND();
    const file = await findFileById(deps, id);
    if (!file) throw FileErrors.FILE_NOT_FOUND();
    return serveFile(storage, file, c.req.header("range"));
  });
  return router;
}
