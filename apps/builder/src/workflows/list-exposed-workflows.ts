import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { workflows } from "./schema.ts";

/** An MCP client lists every tool at once: a bound keeps that answer small. */
const MAX_EXPOSED = 200;

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
