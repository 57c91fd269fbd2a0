import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { WorkflowRow } from "./schema.ts";
import { workflows } from "./schema.ts";

/** Looks a workflow up by id alone: only for the inbound trigger, whose token proves the right to it. */
export async function findWorkflowForTrigger(db: BuilderDb, id: string): Promise<WorkflowRow | undefined> {
  const [row] = await db.select().from(workflows).where(eq(workflows.id, id)).limit(1);
  return row;
}
