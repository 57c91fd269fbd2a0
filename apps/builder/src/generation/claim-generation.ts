import type { Clock } from "@app/core";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { GenerationRow } from "./schema.ts";
import { generations } from "./schema.ts";

/**
 * Claims the next generation due for a poll: unfinished, started on Replicate, its poll time come,
 * and its lease free or expired (a process that died mid-poll). `FOR UPDATE SKIP LOCKED` lets
 * several processes poll in parallel without taking the same row; the lease makes the claim last
 * beyond the transaction.
 *
 * @example const generation = await claimGeneration({ db, clock }, { owner: "wrk_…", leaseMs: 60_000 });
 */
export async function claimGeneration(
  { db, clock }: { db: BuilderDb; clock: Clock },
  lease: { owner: string; leaseMs: number },
): Promise<GenerationRow | undefined> {
  const now = clock.now();
  const [row] = await db
    .update(generations)
    .set({
      leaseOwner: lease.owner,
      leaseExpiresAt: new Date(now.getTime() + lease.leaseMs),
      pollCount: sql`${generations.pollCount} + 1`,
    })
    .where(
      sql`${generations.id} = (
        select id from generations
        where status in ('starting', 'processing')
          and prediction_id is not null
          and next_poll_at <= ${now.toISOString()}::timestamptz
          and (lease_expires_at is null or lease_expires_at < ${now.toISOString()}::timestamptz)
        order by next_poll_at, id
        limit 1
        for update skip locked)`,
    )
    .returning();
  return row;
}
