import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { applyPaymentEvent } from "./apply-payment-event.ts";
import { advanceCursor, currentLink, markReconciled, resetCursor } from "./payment-link.ts";
import {
  type PaymentServiceClient,
  PaymentServiceError,
  type PaymentServiceEvent,
  paymentServiceClient,
} from "./payment-service-client.ts";

/** Events per page (the events API's maximum). */
const PAGE_SIZE = 100;

export interface ReconcileResult {
  /** Events read from the events API in this pass. */
  seen: number;
  /** Of those, events that changed an order. */
  applied: number;
}

/**
 * Catches up with the payment service through its events API, the seed's routine: from the stored
 * cursor (the highest event id applied), `GET /v1/events?starting_after=<cursor>`, walk the page in
 * reverse (oldest first), apply each event with the webhook's idempotent handler, store the last id
 * applied, and repeat while `has_more` and the page is not empty. Without a cursor (first pass, or a
 * cursor the service no longer knows) it first pages back with `ending_before` to the oldest event.
 *
 * @example const { applied } = await reconcilePayments(deps);
 */
export async function reconcilePayments(
  deps: { db: BuilderDb; clock: Clock; logger: Logger; config: BuilderConfig },
  options: { isRestart?: boolean } = {},
): Promise<ReconcileResult> {
  const client = paymentServiceClient(deps.config);
  const link = await currentLink(deps);
  if (!client || !link) throw new Error("PAYMENTS_SECRET_KEY is not set");
  const result: ReconcileResult = { seen: 0, applied: 0 };
  const apply = async (event: PaymentServiceEvent) => {
    result.seen += 1;
    if ((await applyPaymentEvent(deps, event, "reconciler")) === "applied") result.applied += 1;
  };

  let cursor = link.eventsCursor;
  if (!cursor) {
    const oldest = await oldestEvent(client);
    if (!oldest) {
      await markReconciled(deps.db, deps.clock.now());
      return result;
    }
    await apply(oldest);
    await advanceCursor(deps.db, oldest.id);
    cursor = oldest.id;
  }

  for (;;) {
    let page: Awaited<ReturnType<PaymentServiceClient["listEvents"]>>;
    try {
      page = await client.listEvents({ limit: PAGE_SIZE, startingAfter: cursor });
    } catch (error) {
      if (error instanceof PaymentServiceError && error.status === 404 && !options.isRestart) {
        // The service does not know our cursor (another database behind the same key): start over;
        // events already applied are recognised by id.
        deps.logger.warn(
          { cursor },
          "events cursor unknown to the payment service; reconciling from the oldest",
        );
        await resetCursor(deps.db);
        return reconcilePayments(deps, { isRestart: true });
      }
      throw error;
    }
    for (const event of [...page.data].reverse()) {
      await apply(event);
      cursor = event.id;
    }
    await advanceCursor(deps.db, cursor);
    if (!page.has_more || page.data.length === 0) break;
  }
  await markReconciled(deps.db, deps.clock.now());
  if (result.applied > 0) deps.logger.info(result, "reconciled payments");
  return result;
}

/** The oldest event of the account, found by paging back from the newest; undefined when it has none. */
async function oldestEvent(client: PaymentServiceClient): Promise<PaymentServiceEvent | undefined> {
  let oldest: PaymentServiceEvent | undefined;
  for (;;) {
    const page = await client.listEvents({ limit: PAGE_SIZE, endingBefore: oldest?.id });
    oldest = page.data.at(-1) ?? oldest;
    if (!page.has_more || page.data.length === 0) return oldest;
  }
}
