import type { Clock } from "@app/core";
import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { GateResult } from "../versions/evaluation-gate.ts";
import { type WorkflowVersionRow, workflows, workflowVersions } from "./schema.ts";

/**
 * Publishes the workflow's draft as its next version (1, 2, 3…). The update that takes the number
 * locks the workflow's row, so two publishes at once get two numbers and each snapshots the draft it
 * saw. Undefined when the workspace has no such workflow.
 *
 * @example const version = await publishWorkflow({ db, clock }, workspaceId, workflowId, { notes: "", userId });
 */
export async function publishWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  workflowId: string,
  input: { notes: string; userId: string | null; gateResult?: GateResult | null },
): Promise<WorkflowVersionRow | undefined> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [workflow] = await tx
      .update(workflows)
      .set({ publishedVersion: sql`coalesce(${workflows.publishedVersion}, 0) + 1`, publishedAt: now })
      .where(and(eq(workflows.id, workflowId), eq(workflows.workspaceId, workspaceId)))
      .returning();
    if (!workflow?.publishedVersion) return undefined;
    const [version] = await tx
      .insert(workflowVersions)
      .values({
        workflowId,
        version: workflow.publishedVersion,
        workspaceId,
        notes: input.notes,
        name: workflow.name,
        description: workflow.description,
        graph: workflow.graph,
        gateResult: input.gateResult ?? null,
        createdBy: input.userId,
        createdAt: now,
      })
      .returning();
    return version;
  });
}
