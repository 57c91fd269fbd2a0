import { idPattern } from "@app/http";
import { z } from "@hono/zod-openapi";

/** `limit` of the lists: 1 to 100, default 10 (as Stripe does). */
export const limitQuery = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(10)
  .openapi({ param: { name: "limit", in: "query" }, example: 10 });

/**
 * `starting_after` of a list: an id of the list's kind; anything else (another kind's id included)
 * is refused rather than paging nowhere.
 *
 * @example const listRefundsQuery = z.object({ starting_after: startingAfterQuery("re", "a refund") });
 */
export function startingAfterQuery(prefix: string, noun: string) {
  return z
    .string()
    .regex(idPattern(prefix), `must be the id of ${noun} in the list (${prefix}_…)`)
    .optional()
    .openapi({ param: { name: "starting_after", in: "query" } });
}

/**
 * The list envelope from `limit + 1` rows fetched newest first.
 *
 * @example c.json(pageOf(rows, query.limit, toPaymentJson), 200)
 */
export function pageOf<Row, Out>(rows: Row[], limit: number, toJson: (row: Row) => Out) {
  return { object: "list" as const, data: rows.slice(0, limit).map(toJson), has_more: rows.length > limit };
}

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() });
