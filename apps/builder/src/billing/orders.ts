import { and, desc, eq, lt } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { creditOrders } from "./schema.ts";

/**
 * The workspace's orders, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listOrders(db, workspaceId, { limit: 20 });
 */
export function listOrders(
  db: BuilderDb,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
) {
  return db
    .select()
    .from(creditOrders)
    .where(
      and(
        eq(creditOrders.workspaceId, workspaceId),
        page.cursor ? lt(creditOrders.id, page.cursor) : undefined,
      ),
    )
    .orderBy(desc(creditOrders.id))
    .limit(page.limit + 1);
}

/**
 * One order of the workspace, or undefined (another workspace's order is not found either).
 *
 * @example const order = await findOrder(db, workspaceId, "ord_…");
 */
export async function findOrder(db: BuilderDb, workspaceId: string, id: string) {
  const [row] = await db
    .select()
    .from(creditOrders)
    .where(and(eq(creditOrders.id, id), eq(creditOrders.workspaceId, workspaceId)));
  return row;
}
