import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { VersionListQuery, VersionSelector } from "../versions/contract.ts";
import { versionToRun } from "../versions/contract.ts";
import { type WorkflowRow, type WorkflowVersionRow, workflowVersions } from "./schema.ts";

/**
 * A page of a workflow's versions, newest first (`limit + 1` rows, for `toVersionPage`).
 *
 * @example const rows = await listWorkflowVersions(db, workspaceId, workflowId, { limit: 20 });
 */
export function listWorkflowVersions(
  db: BuilderDb,
  workspaceId: string,
  workflowId: string,
  page: VersionListQuery,
): Promise<WorkflowVersionRow[]> {
  return db
    .select()
    .from(workflowVersions)
    .where(
      and(
        eq(workflowVersions.workflowId, workflowId),
        eq(workflowVersions.workspaceId, workspaceId),
        page.cursor === undefined ? undefined : lt(workflowVersions.version, page.cursor),
      ),
    )
    .orderBy(desc(workflowVersions.version))
    .limit(page.limit + 1);
}

/**
 * One version of the workspace's workflow, or undefined.
 *
 * @example const row = await findWorkflowVersion(db, workspaceId, workflowId, 2);
 */
export async function findWorkflowVersion(
  db: BuilderDb,
  workspaceId: string,
  workflowId: string,
  version: number,
): Promise<WorkflowVersionRow | undefined> {
  const [row] = await db
    .select()
    .from(workflowVersions)
    .where(
      and(
        eq(workflowVersions.workflowId, workflowId),
        eq(workflowVersions.version, version),
        eq(workflowVersions.workspaceId, workspaceId),
      ),
    )
    .limit(1);
  return row;
}

/** The workflow a run uses and the version it is, or "version_not_found" for a number never published. */
export type WorkflowToRun = { workflow: WorkflowRow; version: number | undefined } | "version_not_found";

/**
 * The content a run of `workflow` uses under a selector: the draft (absent selector, or "published"
 * for a workflow never published), or a published version's graph over the workflow's row.
 *
 * @example const chosen = await workflowToRun(db, workflow, "published");
 */
export async function workflowToRun(
  db: BuilderDb,
  workflow: WorkflowRow,
  selector: VersionSelector,
): Promise<WorkflowToRun> {
  const number = versionToRun(workflow, selector);
  if (number === undefined) return { workflow, version: undefined };
  const row = await findWorkflowVersion(db, workflow.workspaceId, workflow.id, number);
  if (!row) return "version_not_found";
  return {
    workflow: { ...workflow, name: row.name, description: row.description, graph: row.graph },
    version: row.version,
  };
}
