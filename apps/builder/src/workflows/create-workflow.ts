import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { CreateWorkflowInput } from "./contract.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";

/** Stores a workflow whose graph the caller has already validated. */
export async function createWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  // An imported document carries no exposure: it starts unexposed.
  input: Omit<CreateWorkflowInput, "mcp_exposed" | "error_workflow_id" | "evaluation_gate"> & {
    mcp_exposed?: boolean;
    error_workflow_id?: string | null | undefined;
    evaluation_gate?: CreateWorkflowInput["evaluation_gate"];
  },
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
      evaluationGate: input.evaluation_gate ?? null,
      errorWorkflowId: input.error_workflow_id ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
