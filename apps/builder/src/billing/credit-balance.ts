import { eq } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { creditBalances } from "./schema.ts";

/**
 * The workspace's balance: the sum of its ledger, as the ledger's insert trigger keeps it in
 * `billing_balances` (migration 0008).
 *
 * @example const balance = await creditBalance(db, workspaceId);
 */
export async function creditBalance(db: BuilderDb, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ credits: creditBalances.credits })
    .from(creditBalances)
    .where(eq(creditBalances.workspaceId, workspaceId));
  return row?.credits ?? 0;
}
