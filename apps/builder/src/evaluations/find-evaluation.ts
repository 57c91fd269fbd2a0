import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { evaluations } from "./schema.ts";

/**
 * The workspace's evaluation, or undefined.
 *
 * @example const evaluation = await findEvaluation(db, workspaceId, "eval_…");
 */
export async function findEvaluation(db: BuilderDb, workspaceId: string, id: string) {
  const [row] = await db
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.id, id), eq(evaluations.workspaceId, workspaceId)));
  return row;
}
