import { randomBytes } from "node:crypto";
import { type Clock, sha256Hex } from "@app/core";
import { and, eq, gt } from "drizzle-orm";
import type { PaymentsDb } from "../db/index.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { dashboardSessions } from "./schema.ts";

export const SESSION_COOKIE = "payments_dashboard";
export const SESSION_TTL_MS = 12 * 3_600_000;

export interface DashboardSession extends MerchantScope {
  csrfToken: string;
}

/**
 * Signs a merchant in to the dashboard: returns the cookie value (stored only as a hash) and the session.
 *
 * @example const { cookieValue } = await createDashboardSession({ db, clock }, scope);
 */
export async function createDashboardSession(
  { db, clock }: { db: PaymentsDb; clock: Clock },
  scope: MerchantScope,
): Promise<{ cookieValue: string; session: DashboardSession }> {
  const now = clock.now();
  const cookieValue = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  await db.insert(dashboardSessions).values({
    idHash: sha256Hex(cookieValue),
    merchantId: scope.merchantId,
    environment: scope.environment,
    csrfToken,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    createdAt: now,
  });
  return { cookieValue, session: { ...scope, csrfToken } };
}

/**
 * The session of a cookie value, or null when unknown or expired.
 *
 * @example const session = await findDashboardSession({ db, clock }, cookieValue);
 */
export async function findDashboardSession(
  { db, clock }: { db: PaymentsDb; clock: Clock },
  cookieValue: string,
): Promise<DashboardSession | null> {
  const [row] = await db
    .select()
    .from(dashboardSessions)
    .where(
      and(eq(dashboardSessions.idHash, sha256Hex(cookieValue)), gt(dashboardSessions.expiresAt, clock.now())),
    )
    .limit(1);
  if (!row) return null;
  return {
    merchantId: row.merchantId,
    environment: row.environment as MerchantScope["environment"],
    csrfToken: row.csrfToken,
  };
}

/**
 * Signs out: forgets the session.
 *
 * @example await deleteDashboardSession(db, cookieValue);
 */
export async function deleteDashboardSession(db: PaymentsDb, cookieValue: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.idHash, sha256Hex(cookieValue)));
}
