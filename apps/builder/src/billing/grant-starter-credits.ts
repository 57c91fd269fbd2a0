import type { Clock } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import { addCredits } from "./add-credits.ts";

/**
 * Gives a new workspace its starter credits (`BILLING_STARTER_CREDITS`; none when 0). Call it in
 * the transaction that creates the workspace; a second call for the same workspace books nothing.
 *
 * @example await grantStarterCredits({ db: tx, clock }, workspaceId, config.billing.starterCredits);
 */
export async function grantStarterCredits(
  deps: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  credits: number,
): Promise<void> {
  if (credits <= 0) return;
  await addCredits(deps, {
    workspaceId,
    credits,
    kind: "starter",
    description: "Starter credits",
    reference: `starter:${workspaceId}`,
  });
}
