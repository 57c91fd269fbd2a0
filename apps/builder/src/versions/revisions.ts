// Optimistic concurrency for the drafts people edit (agents, workflows, apps): every write moves the
// row's `updated_at` strictly forward, its value is the revision answered as `ETag`, and a write with
// `If-Match` of another revision is refused with 412 instead of silently overwriting someone else's.
import { type ApiError, defineErrors } from "@app/http";
import { z } from "@hono/zod-openapi";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";

export const RevisionErrors = defineErrors({
  EDIT_CONFLICT: {
    status: 412,
    message:
      "Someone changed this since you loaded it. Reload it (or look at the differences) and apply your change again.",
  },
});

/** The `If-Match` request header of the routes that change a draft. */
export const ifMatchHeaders = z.object({
  "if-match": z.string().max(500).optional().openapi({
    description:
      "The ETag of the revision this change is based on; another revision answers 412 edit_conflict. Without it the change applies to whatever is current.",
  }),
});

/**
 * The revision of a row as an `ETag` value: its `updated_at` in milliseconds, quoted.
 *
 * @example etagOf(row) // "\"lz3k9q1c\""
 */
export function etagOf(row: { updatedAt: Date }): string {
  return `"${row.updatedAt.getTime().toString(36)}"`;
}

/**
 * What an `If-Match` header asks for: any current revision (`*`), one of the listed revisions
 * (their `updated_at` times), or nothing (absent). Weak tags never match, as RFC 9110 says for If-Match.
 *
 * @example expectedRevisions('"lz3k9q1c"') // [Date]
 */
export function expectedRevisions(header: string | undefined): Date[] | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  const times: Date[] = [];
  for (const tag of header.split(",")) {
    const match = /^\s*"([0-9a-z]{1,12})"\s*$/.exec(tag);
    if (!match?.[1]) continue;
    const time = Number.parseInt(match[1], 36);
    if (Number.isSafeInteger(time)) times.push(new Date(time));
  }
  return times;
}

/**
 * The `updated_at` of a write: now, or a millisecond after the previous write when the clock has not
 * moved past it, so two writes never share a revision.
 *
 * @example db.update(agents).set({ ...changes, updatedAt: nextRevision(agents.updatedAt, clock.now()) })
 */
export function nextRevision(column: AnyColumn, now: Date): SQL<Date> {
  return sql<Date>`greatest(${now}::timestamptz, ${column} + interval '1 millisecond')`;
}

/**
 * The condition a write based on `expected` revisions needs; undefined (no condition) without If-Match.
 * No listed revision at all (a malformed header) matches nothing.
 *
 * @example .where(and(eq(agents.id, id), revisionCondition(agents.updatedAt, expected)))
 */
export function revisionCondition(column: AnyColumn, expected: Date[] | undefined): SQL | undefined {
  if (expected === undefined) return undefined;
  if (expected.length === 0) return sql`false`;
  return sql`${column} in (${sql.join(
    expected.map((time) => sql`${time}::timestamptz`),
    sql`, `,
  )})`;
}

/**
 * The 412 of a write based on a stale revision, naming the current one (also as its `ETag`).
 *
 * @example throw editConflict(current);
 */
export function editConflict(current: { updatedAt: Date }) {
  const etag = etagOf(current);
  return RevisionErrors.EDIT_CONFLICT({
    message: `Someone changed this since you loaded it: the current revision is ${etag}. Reload it (or look at the differences) and apply your change again.`,
    param: "If-Match",
    headers: { ETag: etag },
  });
}

/**
 * Why a conditional write changed nothing: the row moved on (412, naming its revision), or it is
 * not there (the caller's 404).
 *
 * @example if (!row) throw await refusedWrite(() => findAgent(db, workspaceId, id), () => AgentErrors.AGENT_NOT_FOUND());
 */
export async function refusedWrite(
  findCurrent: () => Promise<{ updatedAt: Date } | undefined>,
  notFound: () => ApiError,
): Promise<ApiError> {
  const current = await findCurrent();
  return current ? editConflict(current) : notFound();
}
