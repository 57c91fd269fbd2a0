import type { Clock } from "@app/core";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import type { DocumentRow } from "./schema.ts";
import { knowledgeDocuments } from "./schema.ts";

/** Statuses of documents whose ingestion is not finished. */
export const PENDING_STATUSES = ["queued", "parsing", "embedding"] as const;

/**
 * Claims the next document due for ingestion: unfinished, its retry time come, and its lease free
 * or expired (a worker that died mid-way). `FOR UPDATE SKIP LOCKED` lets several workers claim in
 * parallel without taking the same row; the lease makes the claim last beyond the transaction.
 * Each claim counts as an attempt, so a document that crashes its worker every time is bounded too.
 *
 * @example const document = await claimDocument({ db, clock }, { owner: "wrk_…", leaseMs: 60_000 });
 */
export async function claimDocument(
  { db, clock }: { db: BuilderDb; clock: Clock },
  lease: { owner: string; leaseMs: number },
): Promise<DocumentRow | undefined> {
  const now = clock.now();
  const [row] = await db
    .update(knowledgeDocuments)
    .set({
      leaseOwner: lease.owner,
      leaseExpiresAt: new Date(now.getTime() + lease.leaseMs),
      attempts: sql`${knowledgeDocuments.attempts} + 1`,
      updatedAt: now,
    })
    .where(
      sql`${knowledgeDocuments.id} = (
        select id from knowledge_documents
        where status in ('queued', 'parsing', 'embedding')
          and next_attempt_at <= ${now.toISOString()}::timestamptz
          and (lease_expires_at is null or lease_expires_at < ${now.toISOString()}::timestamptz)
        order by next_attempt_at, id
        limit 1
        for update skip locked)`,
    )
    .returning();
  return row;
}
