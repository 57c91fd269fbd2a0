import type { Clock } from "@app/core";
import { and, eq, type SQLWrapper, sql } from "drizzle-orm";
import { consumeRateLimit } from "../auth/rate-limit.ts";
import type { BuilderDb } from "../db/index.ts";
import { AppErrors } from "./errors.ts";
import { type AppRow, type EndUserRow, endUserUsage } from "./schema.ts";

type LimitDeps = { db: BuilderDb; clock: Clock };

/** The UTC day usage is counted in, as `YYYY-MM-DD`. */
function usageDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Counts one costly request (a chat turn, a run) against the end user's rate limit and refuses it
 * with 429 and `Retry-After` when over; other end users keep their own count. Then refuses with 402
 * when the end user has spent the app's daily credit allowance.
 *
 * @example await enforceEndUserLimits({ db, clock }, app, endUser);
 */
export async function enforceEndUserLimits(deps: LimitDeps, app: AppRow, endUser: EndUserRow): Promise<void> {
  const now = deps.clock.now();
  if (app.rateLimit) {
    const { requests, window_seconds: windowSeconds } = app.rateLimit;
    const limit = await consumeRateLimit(
      deps.db,
      `app:${app.id}:${endUser.id}`,
      { max: requests, windowMs: windowSeconds * 1000 },
      now,
    );
    if (!limit.isAllowed) {
      throw AppErrors.END_USER_RATE_LIMITED({
        message: `This app accepts ${requests} requests per ${windowSeconds} s from each user; try again in ${limit.retryAfterSeconds} s.`,
        headers: { "Retry-After": String(limit.retryAfterSeconds) },
      });
    }
  }
  if (app.endUserCreditLimit === null) return;
  const spent = await creditsSpentToday(deps, endUser.id);
  if (spent >= app.endUserCreditLimit) {
    throw AppErrors.END_USER_LIMIT_REACHED({
      message: `You have used today's allowance of this app (${app.endUserCreditLimit} credits); it renews at 00:00 UTC.`,
    });
  }
}

async function creditsSpentToday({ db, clock }: LimitDeps, endUserId: string): Promise<number> {
  const [row] = await db
    .select({ credits: endUserUsage.credits })
    .from(endUserUsage)
    .where(and(eq(endUserUsage.endUserId, endUserId), eq(endUserUsage.day, usageDay(clock.now()))))
    .limit(1);
  return row?.credits ?? 0;
}

/**
 * The write that adds what one request spent to the end user's usage of the day; stored with the
 * request's own writes where it can be (a chat turn's), so usage and the ledger agree.
 *
 * @example const write = endUserUsageWrite(deps, endUser, { credits: 12, inputTokens: 900, outputTokens: 80 });
 */
export function endUserUsageWrite(
  { db, clock }: LimitDeps,
  endUser: EndUserRow,
  spent: { credits: number; inputTokens: number; outputTokens: number },
): SQLWrapper {
  return db
    .insert(endUserUsage)
    .values({
      endUserId: endUser.id,
      day: usageDay(clock.now()),
      appId: endUser.appId,
      credits: spent.credits,
      inputTokens: spent.inputTokens,
      outputTokens: spent.outputTokens,
      requests: 1,
    })
    .onConflictDoUpdate({
      target: [endUserUsage.endUserId, endUserUsage.day],
      set: {
        credits: sql`${endUserUsage.credits} + excluded.credits`,
        inputTokens: sql`${endUserUsage.inputTokens} + excluded.input_tokens`,
        outputTokens: sql`${endUserUsage.outputTokens} + excluded.output_tokens`,
        requests: sql`${endUserUsage.requests} + 1`,
      },
    });
}
