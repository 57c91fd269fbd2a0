import { type Clock, newId } from "@app/core";
import { newestFirst, type PageRequest } from "@app/db";
import type { WorkflowGraph } from "@app/workflow";
import { and, eq, sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { CreateWorkflowInput, UpdateWorkflowInput } from "./contract.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";
import { triggerToken } from "./trigger-token.ts";

export function toWorkflowJson(row: WorkflowRow, context: { publicUrl: string; secretKey: string }) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    graph: row.graph,
    trigger_url: `${context.publicUrl}/api/hooks/${triggerToken(context.secretKey, row.id, row.triggerVersion)}`,
    mcp_exposed: row.mcpExposed,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Stores a workflow whose graph the caller has already validated. */
export async function createWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  // An imported document carries no exposure: it starts unexposed.
  input: Omit<CreateWorkflowInput, "mcp_exposed"> & { mcp_exposed?: boolean },
): Promise<WorkflowRow> {
  const now = clock.now();
  const [row] = await db
    .insert(workflows)
    .values({
      id: newId("wf", now.getTime()),
      workspaceId,
      name: input.name,
      description: input.description,
      graph: input.graph,
      mcpExposed: input.mcp_exposed ?? false,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

export async function findWorkflow(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

/** Looks a workflow up by id alone: only for the inbound trigger, whose token proves the right to it. */
export async function findWorkflowForTrigger(db: BuilderDb, id: string): Promise<WorkflowRow | undefined> {
  const [row] = await db.select().from(workflows).where(eq(workflows.id, id)).limit(1);
  return row;
}

export function listWorkflows(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(workflows.id, page);
  return db
    .select()
    .from(workflows)
    .where(and(eq(workflows.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

export async function updateWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateWorkflowInput & { graph?: WorkflowGraph },
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .update(workflows)
    .set({
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.graph === undefined ? {} : { graph: input.graph }),
      ...(input.mcp_exposed === undefined ? {} : { mcpExposed: input.mcp_exposed }),
      updatedAt: clock.now(),
    })
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .returning();
  return row;
}

/** Invalidates the current trigger URL; the workflow answers a new one. */
export async function rotateTrigger(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .update(workflows)
    .set({ triggerVersion: sql`${workflows.triggerVersion} + 1` })
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .returning();
  return row;
}

/**
 * The workspace's workflows marked `mcp_exposed`, oldest first (the order their tools are listed in).
 *
 * @example const exposed = await listExposedWorkflows(db, "ws_1");
 */
export function listExposedWorkflows(db: BuilderDb, workspaceId: string) {
  return db
    .select()
    .from(workflows)
    .where(and(eq(workflows.workspaceId, workspaceId), eq(workflows.mcpExposed, true)))
    .orderBy(workflows.id)
    .limit(MAX_EXPOSED);
}

/** An MCP client lists every tool at once: a bound keeps that answer small. */
const MAX_EXPOSED = 200;

export async function deleteWorkflow(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.workspaceId, workspaceId)))
    .returning({ id: workflows.id });
  return deleted.length > 0;
}
