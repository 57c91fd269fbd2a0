import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { agents } from "./schema.ts";

/** An MCP client lists every tool at once: a bound keeps that answer small. */
const MAX_EXPOSED = 200;

/**
 * The workspace's agents marked `mcp_exposed`, oldest first (the order their tools are listed in).
 *
 * @example const exposed = await listExposedAgents(db, "ws_1");
 */
export function listExposedAgents(db: BuilderDb, workspaceId: string) {
  return db
    .select({ id: agents.id, name: agents.name, description: agents.description })
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), eq(agents.mcpExposed, true)))
    .orderBy(agents.id)
    .limit(MAX_EXPOSED);
}
