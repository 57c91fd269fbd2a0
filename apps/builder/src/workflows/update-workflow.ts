import type { Clock } from "@app/core";
import type { WorkflowGraph } from "@app/workflow";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { nextRevision, revisionCondition } from "../versions/revisions.ts";
import type { UpdateWorkflowInput } from "./contract.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";

export async function updateWorkflow(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  id: string,
  input: UpdateWorkflowInput & { graph?: WorkflowGraph },
  expected?: Date[],
): Promise<WorkflowRow | undefined> {
  const [row] = await db
    .update(workflows)
    .set({
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.graph === undefined ? {} : { graph: input.graph }),
      ...(input.mcp_exposed === undefined ? {} : { mcpExposed: input.mcp_exposed }),
      ...(input.evaluation_gate === undefined ? {} : { evaluationGate: input.evaluation_gate }),
      ...(input.error_workflow_id === undefined ? {} : { errorWorkflowId: input.error_workflow_id }),
      updatedAt: nextRevision(workflows.updatedAt, clock.now()),
    })
    .where(
      and(
        eq(workflows.id, id),
        eq(workflows.workspaceId, workspaceId),
        revisionCondition(workflows.updatedAt, expected),
      ),
    )
    .returning();
  return row;
}
