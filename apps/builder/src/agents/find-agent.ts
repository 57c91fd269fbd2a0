import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { AgentRow } from "./schema.ts";
import { agents } from "./schema.ts";

/** The workspace's agent with this id, or undefined (another workspace's agent is not found either). */
export async function findAgent(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<AgentRow | undefined> {
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, id), eq(agents.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
