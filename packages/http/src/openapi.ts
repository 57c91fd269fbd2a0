import { z } from "@hono/zod-openapi";

/**
 * A resource id in the path, documented under `name`; ids are short, so anything longer is refused.
 *
 * @example const params = z.object({ id: pathId("id"), delivery_id: pathId("delivery_id") });
 */
export function pathId(name: string) {
  return z
    .string()
    .max(64)
    .openapi({ param: { name, in: "path" } });
}

/**
 * A PATCH body: every field optional, no unknown field, and at least one field present (an empty
 * body would change nothing and answer 200 as if it had).
 *
 * @example export const updateAgentBody = patchBody(z.object({ name: z.string() }).partial()).openapi("UpdateAgentRequest");
 */
export function patchBody<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>) {
  const fields = Object.keys(schema.shape).join(", ");
  return schema
    .strict()
    .refine((body) => Object.keys(body).length > 0, { message: `must set at least one of ${fields}` })
    .openapi({ minProperties: 1 });
}

/** The `{id}` path parameter of every route about one resource. */
export const idParam = z.object({ id: pathId("id") });

/**
 * The `content` of a JSON request or response in a route definition.
 *
 * @example responses: { 200: { description: "The agent", content: jsonContent(agentSchema) } }
 */
export const jsonContent = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

export const errorBodySchema = z
  .object({
    error: z.object({
      type: z.enum([
        "invalid_request_error",
        "authentication_error",
        "not_found",
        "conflict",
        "rate_limit_error",
        "api_error",
      ]),
      code: z.string().openapi({ example: "validation_failed" }),
      message: z.string(),
      param: z.string().optional(),
      details: z
        .array(
          z.object({
            path: z.string(),
            message: z.string(),
            code: z.string().optional(),
            node_id: z.string().optional(),
            edge_id: z.string().optional(),
          }),
        )
        .optional(),
    }),
  })
  .openapi("Error");

const descriptions: Record<number, string> = {
  400: "Malformed request (e.g. invalid JSON)",
  401: "Not authenticated",
  402: "Out of credits",
  404: "Not found (or not yours)",
  409: "Conflict with the current state",
  413: "Body too large",
  415: "Unsupported media type",
  422: "Validation failed; `details` names the fields",
  429: "Rate limited; see Retry-After",
  500: "Unexpected error",
};

/**
 * OpenAPI response entries in the error shape for the given statuses (default: the ones every route can give).
 *
 * @example responses: { 200: {...}, ...errorResponses(404, 422) }
 */
export function errorResponses(...statuses: number[]) {
  const list = statuses.length > 0 ? statuses : [400, 401, 500];
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof errorBodySchema } } }
  > = {};
  for (const status of new Set([...list, 500])) {
    out[status] = {
      description: descriptions[status] ?? "Error",
      content: { "application/json": { schema: errorBodySchema } },
    };
  }
  return out;
}

/** What follows the prefix in every id `newId` makes: `_`, 26 Crockford base-32 characters. */
const ID_AFTER_PREFIX = "_[0-9a-hjkmnp-tv-z]{26}$";

/**
 * The shape of every id `newId` makes: a lower-case prefix, `_`, 26 Crockford base-32 characters. A
 * list cursor is the last id of a page, so anything else is refused instead of ordering nothing.
 */
export const ID_PATTERN = new RegExp(`^[a-z][a-z0-9]{0,15}${ID_AFTER_PREFIX}`);

/**
 * The shape of the ids of one kind, for a cursor of a list holding only that kind: another kind's
 * id would order nothing in it.
 *
 * @example idPattern("re").test("re_01jd3k6n0p7q8r9s0t1v2w3x4y") // true
 */
export function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}${ID_AFTER_PREFIX}`);
}

/** `?limit&cursor` of every list. */
export const listQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: z
    .string()
    .regex(ID_PATTERN, "must be the next_cursor of a previous page")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

/**
 * A list's query with `q`: the list's rows whose name (or description, where the list says so)
 * contains it, case-insensitively.
 */
export const searchableListQuerySchema = listQuerySchema.extend({
  q: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(200)
    .optional()
    .openapi({
      param: { name: "q", in: "query" },
      description: "Only rows whose name or description contains this text (case-insensitive)",
    }),
});

/**
 * The list envelope `{ data, has_more, next_cursor }`.
 *
 * @example listOf(agentSchema).openapi("AgentList")
 */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}

/**
 * A list query that pages both ways (the events lists of both services): `starting_after` asks for
 * newer items, `ending_before` for older ones, and one request may name at most one of them.
 *
 * @example export const listEventsQuery = atMostOneCursor(z.object({ limit, starting_after: cursor, ending_before: cursor }));
 */
export function atMostOneCursor<
  T extends z.ZodType<{ starting_after?: string | undefined; ending_before?: string | undefined }>,
>(query: T): T {
  return query.refine((value) => value.starting_after === undefined || value.ending_before === undefined, {
    message: "cannot be combined with starting_after",
    path: ["ending_before"],
  });
}

/**
 * Builds the list envelope from `limit + 1` fetched rows; the cursor is the last returned id.
 *
 * @example const page = toPage(rows, query.limit, toAgentJson);
 */
export function toPage<Row extends { id: string }, Out>(
  rows: Row[],
  limit: number,
  toJson: (row: Row) => Out,
) {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: pageRows.map(toJson),
    has_more: hasMore,
    next_cursor: hasMore ? (pageRows.at(-1)?.id ?? null) : null,
  };
}

type DocumentOperation = {
  parameters?: { in: string }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, unknown>;
  security?: unknown[];
};

/**
 * Adds to every operation of a generated document the error answers the shared middleware gives
 * it, so no route has to repeat them: any path or query string can be refused by the input guard
 * (400 not UTF-8, 422 NUL) and a parameter by its schema (422); a JSON body can be malformed (400), too large (413),
 * of another media type (415) or invalid (422); a secured operation answers 401 without credentials;
 * and any operation 500. `errorSchemaFor` names the error body of a path (better-auth's routes add fields).
 *
 * @example const document = completeErrorResponses(app.getOpenAPI31Document({ … }));
 */
export function completeErrorResponses<D extends { paths?: object; security?: unknown[] }>(
  document: D,
  errorSchemaFor: (path: string) => string = () => "Error",
): D {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, DocumentOperation>)) {
      if (typeof operation !== "object" || operation === null || !("responses" in operation)) continue;
      // The input guard reads every path and query string, even parameters an operation does not take.
      const statuses = new Set<number>([400, 422, 500]);
      if (operation.requestBody?.content?.["application/json"]) statuses.add(400).add(413).add(415).add(422);
      if ((operation.security ?? document.security ?? []).length > 0) statuses.add(401);
      const responses = operation.responses ?? {};
      for (const status of statuses) {
        responses[String(status)] ??= {
          description: descriptions[status] ?? "Error",
          content: {
            "application/json": { schema: { $ref: `#/components/schemas/${errorSchemaFor(path)}` } },
          },
        };
      }
      operation.responses = responses;
    }
  }
  return document;
}
