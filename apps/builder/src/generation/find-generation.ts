import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { GenerationRow } from "./schema.ts";
import { generations } from "./schema.ts";

/**
 * The workspace's generation with this id, or undefined (another workspace's is not found either).
 *
 * @example const row = await findGeneration({ db }, "ws_1", "gen_1");
 */
export async function findGeneration(
  { db }: { db: BuilderDb },
  workspaceId: string,
  id: string,
): Promise<GenerationRow | undefined> {
  const [row] = await db
    .select()
    .from(generations)
    .where(and(eq(generations.id, id), eq(generations.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
