import type { Clock } from "@app/core";
import type { WorkflowGraph } from "@app/workflow";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { changedFields, diffById } from "../versions/diff.ts";
import { nextRevision, revisionCondition } from "../versions/revisions.ts";
import { type WorkflowRow, workflows } from "./schema.ts";
import { findWorkflowVersion } from "./workflow-versions.ts";

/** What a workflow version fixes, and what a diff compares. */
export interface WorkflowContent {
  name: string;
  description: string;
  graph: WorkflowGraph;
}

/**
 * The content of one side of a diff: the draft, or a published version (undefined when missing).
 *
 * @example const side = await workflowSide(db, workflow, "draft");
 */
export async function workflowSide(
  db: BuilderDb,
  workflow: WorkflowRow,
  side: "draft" | number,
): Promise<WorkflowContent | undefined> {
  if (side === "draft") return workflow;
  return findWorkflowVersion(db, workflow.workspaceId, workflow.id, side);
}

/**
 * What changed from `before` to `after`: name and description, nodes added, removed and changed
 * (each changed field with both values; `data` fields one by one), edges added, removed and changed.
 *
 * @example const diff = diffWorkflows(version, draft);
 */
export function diffWorkflows(before: WorkflowContent, after: WorkflowContent) {
  return {
    fields: changedFields(
      { name: before.name, description: before.description },
      { name: after.name, description: after.description },
      ["name", "description"],
    ),
    nodes: diffById(before.graph.nodes, after.graph.nodes),
    edges: diffById(before.graph.edges, after.graph.edges),
  };
}

/**
 * Makes a version's content the workflow's draft (a write like any edit: a new revision, and
 * `If-Match` honoured); the history keeps every version.
 *
 * @example const row = await restoreWorkflow({ db, clock }, workspaceId, workflowId, version, expected);
 */
export async function restoreWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  workflowId: string,
  content: WorkflowContent,
  expected?: Date[],
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .update(workflows)
    .set({
      name: content.name,
      description: content.description,
      graph: content.graph,
      updatedAt: nextRevision(workflows.updatedAt, clock.now()),
    })
    .where(
      and(
        eq(workflows.id, workflowId),
        eq(workflows.workspaceId, workspaceId),
        revisionCondition(workflows.updatedAt, expected),
      ),
    )
    .returning();
  return row;
}
