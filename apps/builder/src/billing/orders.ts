import { newestFirst, type PageRequest } from "@app/db";
import { and, eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { creditOrders } from "./schema.ts";

/**
 * The workspace's orders, newest first; fetches `limit + 1` rows for the list envelope.
 *
 * @example const rows = await listOrders(db, workspaceId, { limit: 20 });
 */
export function listOrders(db: BuilderDb, workspaceId: string, page: PageRequest) {
  const newest = newestFirst(creditOrders.id, page);
  return db
    .select()
    .from(creditOrders)
    .where(and(eq(creditOrders.workspaceId, workspaceId), newest.olderThanCursor))
    .orderBy(newest.order)
    .limit(newest.limit);
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
