import { randomBytes } from "node:crypto";
import { type Clock, newId, unixSeconds } from "@app/core";
import { newestFirst } from "@app/db";
import { and, count, eq } from "drizzle-orm";
import type { WebhooksDb } from "./db.ts";
import { webhookEndpoints } from "./schema.ts";

/** After a rotation the old secret keeps signing (a second `v1=`) this long. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * A new signing secret: `whsec_` and 32 random bytes in hex. It is used as the HMAC key exactly
 * as written (the whole string, UTF-8), not decoded.
 *
 * @example newSigningSecret() // "whsec_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
 */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("hex")}`;
}

/**
 * The API shape of an endpoint; the secret only when it was just created or rotated.
 *
 * @example c.json(toEndpointJson(row, { secret }), 201)
 */
export function toEndpointJson(row: EndpointRow, reveal: { secret?: string } = {}) {
  return {
    id: row.id,
    object: "webhook_endpoint" as const,
    url: row.url,
    description: row.description,
    enabled_events: row.enabledEvents,
    status: row.isDisabled ? ("disabled" as const) : ("enabled" as const),
    environment: row.environment,
    created: unixSeconds(row.createdAt),
    ...(reveal.secret === undefined ? {} : { secret: reveal.secret }),
  };
}

/**
 * Registers an endpoint (the caller has checked the URL) and returns it with its secret, shown once.
 *
 * @example const { row, secret } = await createEndpoint({ db, clock }, { ownerId, environment: "test", url, enabledEvents: ["*"] });
 */
export async function createEndpoint(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  input: { ownerId: string; environment: string; url: string; enabledEvents: string[]; description?: string },
): Promise<{ row: EndpointRow; secret: string }> {
  const now = clock.now();
  const secret = newSigningSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({
      id: newId("we", now.getTime()),
      ownerId: input.ownerId,
      environment: input.environment,
      url: input.url,
      description: input.description ?? "",
      enabledEvents: input.enabledEvents,
      secret,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { row, secret };
}

/**
 * One endpoint of the owner in this environment, or undefined.
 *
 * @example const row = await findEndpoint(db, { ownerId, environment: "test", id: "we_…" });
 */
export async function findEndpoint(
  db: WebhooksDb,
  scope: { ownerId: string; environment: string; id: string },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, scope.id),
        eq(webhookEndpoints.ownerId, scope.ownerId),
        eq(webhookEndpoints.environment, scope.environment),
      ),
    )
    .limit(1);
  return row;
}

/**
 * The owner's endpoints, newest first, `limit + 1` rows so the caller can tell whether more exist.
 *
 * @example const rows = await listEndpoints(db, { ownerId, environment: "test", limit: 20 });
 */
export function listEndpoints(
  db: WebhooksDb,
  query: { ownerId: string; environment: string; limit: number; startingAfter?: string | undefined },
): Promise<EndpointRow[]> {
  const newest = newestFirst(webhookEndpoints.id, { limit: query.limit, cursor: query.startingAfter });
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.ownerId, query.ownerId),
        eq(webhookEndpoints.environment, query.environment),
        newest.olderThanCursor,
      ),
    )
    .orderBy(newest.order)
    .limit(newest.limit);
}

/**
 * How many endpoints the owner has in this environment (for a per-owner cap).
 *
 * @example if ((await countEndpoints(db, { ownerId, environment: "live" })) >= 20) throw tooMany();
 */
export async function countEndpoints(
  db: WebhooksDb,
  scope: { ownerId: string; environment: string },
): Promise<number> {
  const [row] = await db
    .select({ count: count() })
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.ownerId, scope.ownerId), eq(webhookEndpoints.environment, scope.environment)),
    );
  return row?.count ?? 0;
}

/**
 * Changes an endpoint's URL (already checked by the caller), subscribed types, description or disabled flag.
 *
 * @example await updateEndpoint({ db, clock }, scope, { isDisabled: true });
 */
export async function updateEndpoint(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  scope: { ownerId: string; environment: string; id: string },
  input: { url?: string; enabledEvents?: string[]; description?: string; isDisabled?: boolean },
): Promise<EndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.enabledEvents === undefined ? {} : { enabledEvents: input.enabledEvents }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.isDisabled === undefined ? {} : { isDisabled: input.isDisabled }),
      updatedAt: clock.now(),
    })
    .where(
      and(
        eq(webhookEndpoints.id, scope.id),
        eq(webhookEndpoints.ownerId, scope.ownerId),
        eq(webhookEndpoints.environment, scope.environment),
      ),
    )
    .returning();
  return row;
}

/**
 * Issues a new secret; the current one keeps signing for 24 h, so during the overlap every delivery
 * carries two `v1=` signatures and receivers can switch without dropping any.
 *
 * @example const rotated = await rotateEndpointSecret({ db, clock }, scope); // rotated?.secret is shown once
 */
export async function rotateEndpointSecret(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  scope: { ownerId: string; environment: string; id: string },
): Promise<{ row: EndpointRow; secret: string } | undefined> {
  const existing = await findEndpoint(db, scope);
  if (!existing) return undefined;
  const now = clock.now();
  const secret = newSigningSecret();
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      secret,
      previousSecret: existing.secret,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
      updatedAt: now,
    })
    .where(and(eq(webhookEndpoints.id, existing.id), eq(webhookEndpoints.secret, existing.secret)))
    .returning();
  return row ? { row, secret } : undefined;
}

/**
 * Deletes an endpoint with its deliveries and their attempt records (events stay).
 *
 * @example const isDeleted = await deleteEndpoint(db, { ownerId, environment: "test", id });
 */
export async function deleteEndpoint(
  db: WebhooksDb,
  scope: { ownerId: string; environment: string; id: string },
): Promise<boolean> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, scope.id),
        eq(webhookEndpoints.ownerId, scope.ownerId),
        eq(webhookEndpoints.environment, scope.environment),
      ),
    )
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}
