import { containsPattern, newestFirst, type PageRequest } from "@app/db";
import { and, eq, getTableColumns, gt, gte, inArray, isNull, lt, lte, type SQL, sql } from "drizzle-orm";
import type { BuilderDb } from "../../db/index.ts";
import { type RunRow, type RunTrigger, workflowRuns } from "../schema.ts";

/** Which runs the workspace's logs show (every field narrows; absent ones do not). */
export interface RunLogFilter {
  workflowId?: string | undefined;
  appId?: string | undefined;
  /** A workflow version, or `draft` for runs of the unpublished workflow. */
  version?: number | "draft" | undefined;
  /** The app end users meant (already resolved); [] matches none. */
  endUserIds?: string[] | undefined;
  status?: RunRow["status"] | undefined;
  trigger?: RunTrigger | undefined;
  /** Started at or after `from`, before `to`. */
  from?: Date | undefined;
  to?: Date | undefined;
  /** Inputs or outputs holding a string value that contains this text (case-insensitive). */
  q?: string | undefined;
}

/** A run without its graph: what the logs list and export. */
export type LoggedRun = Omit<RunRow, "graph">;

const { graph: _graph, ...loggedColumns } = getTableColumns(workflowRuns);

function conditions(workspaceId: string, filter: RunLogFilter): SQL | undefined {
  // String values anywhere in the JSON, unquoted, so a search for `say "hi"` finds it as typed.
  const holds = (column: typeof workflowRuns.inputs | typeof workflowRuns.outputs, pattern: string) =>
    sql`exists (select 1 from jsonb_path_query(${column}, 'strict $.**') as v(value)
      where jsonb_typeof(v.value) = 'string' and v.value #>> '{}' ilike ${pattern})`;
  const pattern = filter.q ? containsPattern(filter.q) : undefined;
  return and(
    eq(workflowRuns.workspaceId, workspaceId),
    filter.workflowId === undefined ? undefined : eq(workflowRuns.workflowId, filter.workflowId),
    filter.appId === undefined ? undefined : eq(workflowRuns.appId, filter.appId),
    filter.version === undefined
      ? undefined
      : filter.version === "draft"
        ? isNull(workflowRuns.version)
        : eq(workflowRuns.version, filter.version),
    filter.endUserIds === undefined
      ? undefined
      : filter.endUserIds.length === 0
        ? sql`false`
        : inArray(workflowRuns.endUserId, filter.endUserIds),
    filter.status === undefined ? undefined : eq(workflowRuns.status, filter.status),
    filter.trigger === undefined ? undefined : eq(workflowRuns.trigger, filter.trigger),
    filter.from === undefined ? undefined : gte(workflowRuns.startedAt, filter.from),
    filter.to === undefined ? undefined : lt(workflowRuns.startedAt, filter.to),
    pattern
      ? sql`(${holds(workflowRuns.inputs, pattern)} or ${holds(workflowRuns.outputs, pattern)})`
      : undefined,
  );
}

/**
 * The workspace's runs matching `filter`, newest first (`limit + 1` rows), without their graphs.
 *
 * @example const rows = await listLoggedRuns(db, workspaceId, { status: "failed" }, { limit: 20 });
 */
export function listLoggedRuns(
  db: BuilderDb,
  workspaceId: string,
  filter: RunLogFilter,
  page: PageRequest,
): Promise<LoggedRun[]> {
  const newest = newestFirst(workflowRuns.id, page);
  return db
    .select(loggedColumns)
    .from(workflowRuns)
    .where(and(conditions(workspaceId, filter), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * One page of an export of the runs matching `filter`, oldest first: the next `limit` runs of the
 * workspace after the run `after` are read as one index range and the matching ones answered, with
 * `after` set to the last run read (undefined at the end), so every page costs the same.
 *
 * @example const { rows, after } = await exportRunsPage(db, workspaceId, { status: "failed" }, undefined, 1000);
 */
export async function exportRunsPage(
  db: BuilderDb,
  workspaceId: string,
  filter: RunLogFilter,
  after: string | undefined,
  limit: number,
): Promise<{ rows: LoggedRun[]; after: string | undefined }> {
  const range = db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(
      and(
        eq(workflowRuns.workspaceId, workspaceId),
        after === undefined ? undefined : gt(workflowRuns.id, after),
      ),
    )
    .orderBy(workflowRuns.id)
    .limit(limit);
  const [last] = await db
    .select({ id: sql<string | null>`max("range"."id")`, count: sql<number>`count(*)::int` })
    .from(range.as("range"));
  if (!last?.id) return { rows: [], after: undefined };
  const rows = await db
    .select(loggedColumns)
    .from(workflowRuns)
    .where(
      and(
        conditions(workspaceId, filter),
        after === undefined ? undefined : gt(workflowRuns.id, after),
        lte(workflowRuns.id, last.id),
      ),
    )
    .orderBy(workflowRuns.id);
  return { rows, after: last.count < limit ? undefined : last.id };
}
