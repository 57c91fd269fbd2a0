import { type Clock, sha256Hex } from "@app/core";
import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import { credentialKey, decryptSecret, encryptSecret } from "../credentials/encryption.ts";
import type { BuilderDb } from "../db/index.ts";
import type { PaymentLinkRow } from "./schema.ts";
import { paymentServiceLink } from "./schema.ts";

/** The one row of the link. */
const LINK_ID = "payments";

type LinkDeps = {
  db: BuilderDb;
  clock: Clock;
  config: Pick<BuilderConfig, "paymentsUrl" | "paymentsSecretKey" | "secretKey">;
};

/**
 * Which merchant account the builder talks to: a digest of the service's URL and the key, so the
 * key itself is not stored and a new key (another merchant) starts with no endpoint and no cursor.
 */
function accountOf(config: LinkDeps["config"]): string | undefined {
  if (!config.paymentsSecretKey) return undefined;
  return sha256Hex(`${config.paymentsUrl}\n${config.paymentsSecretKey}`);
}

/**
 * The link for the configured account, created (or reset, when the account changed) on first use.
 * Undefined when no payment service key is configured.
 *
 * @example const link = await currentLink(deps);
 */
export async function currentLink(deps: LinkDeps): Promise<PaymentLinkRow | undefined> {
  const account = accountOf(deps.config);
  if (!account) return undefined;
  const now = deps.clock.now();
  await deps.db
    .insert(paymentServiceLink)
    .values({ id: LINK_ID, account, updatedAt: now })
    .onConflictDoNothing({ target: paymentServiceLink.id });
  const [row] = await deps.db.select().from(paymentServiceLink).where(eq(paymentServiceLink.id, LINK_ID));
  if (row && row.account === account) return row;
  const [reset] = await deps.db
    .update(paymentServiceLink)
    .set({
      account,
      endpointId: null,
      webhookUrl: null,
      sealedSecret: null,
      eventsCursor: null,
      reconciledAt: null,
      updatedAt: now,
    })
    .where(eq(paymentServiceLink.id, LINK_ID))
    .returning();
  return reset;
}

/**
 * Records the webhook endpoint and its signing secret (sealed under the master key), unless another
 * process recorded a different endpoint meanwhile: only a link still naming `replacing` (or none) is
 * changed. Answers whether this endpoint is the one recorded now.
 *
 * @example const isStored = await storeEndpoint(deps, { id: "we_…", url, secret }, link.endpointId);
 */
export async function storeEndpoint(
  deps: LinkDeps,
  endpoint: { id: string; url: string; secret: string },
  replacing: string | null,
): Promise<boolean> {
  const account = accountOf(deps.config);
  if (!account) return false;
  const sealed = encryptSecret(
    credentialKey(deps.config.secretKey),
    endpoint.secret,
    sealContext(endpoint.id),
  );
  const [row] = await deps.db
    .update(paymentServiceLink)
    .set({
      endpointId: endpoint.id,
      webhookUrl: endpoint.url,
      sealedSecret: sealed,
      updatedAt: deps.clock.now(),
    })
    .where(
      and(
        eq(paymentServiceLink.id, LINK_ID),
        eq(paymentServiceLink.account, account),
        replacing === null
          ? isNull(paymentServiceLink.endpointId)
          : or(isNull(paymentServiceLink.endpointId), eq(paymentServiceLink.endpointId, replacing)),
      ),
    )
    .returning({ endpointId: paymentServiceLink.endpointId });
  return row?.endpointId === endpoint.id;
}

/**
 * Notes a new URL of the recorded endpoint (after it was updated on the payment service).
 *
 * @example await storeEndpointUrl(deps, endpoint.id, url);
 */
export async function storeEndpointUrl(deps: LinkDeps, endpointId: string, url: string): Promise<void> {
  await deps.db
    .update(paymentServiceLink)
    .set({ webhookUrl: url, updatedAt: deps.clock.now() })
    .where(and(eq(paymentServiceLink.id, LINK_ID), eq(paymentServiceLink.endpointId, endpointId)));
}

/**
 * The signing secrets webhooks are verified with: the recorded endpoint's, or none before the
 * endpoint is registered. Throws when the sealed secret does not open (SECRET_KEY changed).
 *
 * @example const secrets = await webhookSecrets(deps);
 */
export async function webhookSecrets(deps: LinkDeps): Promise<string[]> {
  const account = accountOf(deps.config);
  if (!account) return [];
  const [row] = await deps.db
    .select({ endpointId: paymentServiceLink.endpointId, sealedSecret: paymentServiceLink.sealedSecret })
    .from(paymentServiceLink)
    .where(and(eq(paymentServiceLink.id, LINK_ID), eq(paymentServiceLink.account, account)));
  if (!row?.endpointId || !row.sealedSecret) return [];
  return [decryptSecret(credentialKey(deps.config.secretKey), row.sealedSecret, sealContext(row.endpointId))];
}

/**
 * Moves the reconciler's cursor forward (never back: two processes reconciling at once may finish
 * out of order). Event ids sort in the order events became visible.
 *
 * @example await advanceCursor(db, "evt_…");
 */
export async function advanceCursor(db: BuilderDb, cursor: string): Promise<void> {
  await db
    .update(paymentServiceLink)
    .set({ eventsCursor: cursor })
    .where(
      and(
        eq(paymentServiceLink.id, LINK_ID),
        // Byte order, whatever the database's collation: that is the order event ids sort in.
        or(
          isNull(paymentServiceLink.eventsCursor),
          sql`${paymentServiceLink.eventsCursor} collate "C" < ${cursor}`,
        ),
      ),
    );
}

/** Forgets the cursor (the payment service no longer knows it), so the next pass starts from the oldest event. */
export async function resetCursor(db: BuilderDb): Promise<void> {
  await db.update(paymentServiceLink).set({ eventsCursor: null }).where(eq(paymentServiceLink.id, LINK_ID));
}

/** Notes when a reconciliation pass last completed. */
export async function markReconciled(db: BuilderDb, at: Date): Promise<void> {
  await db
    .update(paymentServiceLink)
    .set({
      reconciledAt: sql`greatest(${paymentServiceLink.reconciledAt}, ${at.toISOString()}::timestamptz)`,
    })
    .where(eq(paymentServiceLink.id, LINK_ID));
}

/** The associated data a sealed signing secret is bound to, apart from credentials' own. */
function sealContext(endpointId: string): string {
  return `billing/payment-webhook/${endpointId}`;
}
