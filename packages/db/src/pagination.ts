import { type AnyColumn, desc, ilike, lt, or, type SQL } from "drizzle-orm";
import { containsPattern } from "./like-pattern.ts";

/** A cursor page request: up to `limit` rows after `cursor`, the last id of the previous page. */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
  /** Only rows whose searched columns contain this text (see `containsText`). */
  q?: string | undefined;
}

/**
 * The parts of a newest-first page query over a time-sortable id, the counterpart of the HTTP
 * package's `toPage`: rows older than the cursor, newest first, one more than the limit so the
 * envelope can tell whether more exist.
 *
 * @example
 * const newest = newestFirst(agents.id, page);
 * db.select().from(agents)
 *   .where(and(eq(agents.workspaceId, workspaceId), newest.olderThanCursor))
 *   .orderBy(newest.order)
 *   .limit(newest.limit);
 */
export function newestFirst(id: AnyColumn, page: PageRequest) {
  return {
    olderThanCursor: page.cursor ? lt(id, page.cursor) : undefined,
    order: desc(id),
    limit: page.limit + 1,
  };
}

/**
 * Rows where any of `columns` contains `text`, case-insensitively, with `%`, `_` and `\\` in the
 * text taken literally; undefined (no condition) without text, so a list adds it unconditionally.
 *
 * @example .where(and(eq(agents.workspaceId, id), containsText([agents.name, agents.description], page.q)))
 */
export function containsText(columns: readonly AnyColumn[], text: string | undefined): SQL | undefined {
  if (!text) return undefined;
  const pattern = containsPattern(text);
  return or(...columns.map((column) => ilike(column, pattern)));
}
