import { z } from "@hono/zod-openapi";

/** A file's bytes, whole or a range of them, as the answer's body. */
export const fileBytes = z.string().openapi({ type: "string", format: "binary" });

/** One byte range (`bytes=0-1023`), so a video can seek; anything longer than a range is refused. */
export const rangeHeaders = z.object({
  range: z.string().max(200).optional().openapi({ example: "bytes=0-1023" }),
});
