import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type KnownMcpTool, type McpServerRow, mcpServers } from "./schema.ts";

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

/**
 * Newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listMcpServers(db, "ws_1", { limit: 20 });
 */
export function listMcpServers(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(mcpServers.id, page);
  return db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
}

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

/**
 * Remembers the tools a server listed, so agents can still offer (and explain the failure of) its
 * tools while it is down.
 *
 * @example await rememberTools(db, row, tools, clock.now());
 */
export async function rememberTools(
  db: BuilderDb,
  row: Pick<McpServerRow, "id" | "workspaceId">,
  tools: KnownMcpTool[],
  at: Date,
): Promise<void> {
  await db
    .update(mcpServers)
    .set({ tools, toolsCheckedAt: at })
    .where(and(eq(mcpServers.id, row.id), eq(mcpServers.workspaceId, row.workspaceId)));
}
