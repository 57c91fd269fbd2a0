import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { mcpServers } from "./schema.ts";

/**
 * Deletes the connection; false when the workspace has none with this id.
 *
 * @example if (!(await deleteMcpServer(db, "ws_1", "mcp_1"))) throw McpErrors.MCP_SERVER_NOT_FOUND();
 */
export async function deleteMcpServer(db: BuilderDb, workspaceId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.workspaceId, workspaceId)))
    .returning({ id: mcpServers.id });
  return deleted.length > 0;
}
