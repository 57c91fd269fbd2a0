import { z } from "@hono/zod-openapi";

/** A file's bytes, whole or a range of them, as the answer's body. */
export const fileBytes = z.string().openapi({ type: "string", format: "binary" });

/** One byte range (`bytes=0-1023`), so a video can seek; anything longer than a range is refused. */
export const rangeHeaders = z.object({
  range: z.string().max(200).optional().openapi({ example: "bytes=0-1023" }),
});

/** The query of a signed link to a stored file. */
export const signedFileQuery = z.object({
  expires: z
    .string()
    .regex(/^[0-9]{1,11}$/, "must be Unix seconds")
    .openapi({
      param: { name: "expires", in: "query" },
      description: "Unix seconds after which the link stops working",
    }),
  signature: z
    .string()
    .max(100)
    .openapi({ param: { name: "signature", in: "query" } }),
});
