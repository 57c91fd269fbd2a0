import { newId } from "@app/core";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../db/index.ts";
import { rateLimit } from "./schema.ts";

/**
 * Counts one request against `key` in a fixed window, atomically in the database so every process
 * shares the count. Answers whether it is allowed and, when not, the seconds until the window resets.
 *
 * @example const { isAllowed, retryAfterSeconds } = await consumeRateLimit(db, `hook:${id}`, { max: 60, windowMs: 60_000 }, now);
 */
export async function consumeRateLimit(
  db: BuilderDb,
  key: string,
  rule: { max: number; windowMs: number },
  now: Date,
): Promise<{ isAllowed: boolean; retryAfterSeconds: number }> {
  const nowMs = now.getTime();
  const windowStart = nowMs - rule.windowMs;
  const [row] = await db
    .insert(rateLimit)
    .values({ id: newId("rl", nowMs), key, count: 1, lastRequest: nowMs })
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`case when ${rateLimit.lastRequest} < ${windowStart} then 1 else ${rateLimit.count} + 1 end`,
        lastRequest: sql`case when ${rateLimit.lastRequest} < ${windowStart} then ${nowMs} else ${rateLimit.lastRequest} end`,
      },
    })
    .returning({ count: rateLimit.count, windowStartedAt: rateLimit.lastRequest });
  const count = row?.count ?? 1;
  const resetsAt = (row?.windowStartedAt ?? nowMs) + rule.windowMs;
  return {
    isAllowed: count <= rule.max,
    retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - nowMs) / 1000)),
  };
}
