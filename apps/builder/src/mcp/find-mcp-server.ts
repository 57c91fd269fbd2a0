import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type McpServerRow, mcpServers } from "./schema.ts";

/**
 * The workspace's MCP server with this id; undefined for another workspace's.
 *
 * @example const row = await findMcpServer(db, "ws_1", "mcp_1");
 */
export async function findMcpServer(
  db: BuilderDb,
  workspaceId: string,
  id: string,
): Promise<McpServerRow | undefined> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.workspaceId, workspaceId)))
    .limit(1);
  return row;
}
