import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { type KnownMcpTool, type McpServerRow, mcpServers } from "./schema.ts";

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
