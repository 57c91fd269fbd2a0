import type { Clock } from "@app/core";
import { type RecordedEvent, recordEvent, type WebhooksDb } from "@app/webhooks";
import type { SQL } from "drizzle-orm";
import { type BuilderEventType, eventScope } from "./event-types.ts";

/** Tells the delivery engine that events were committed, so it delivers them without waiting for its next poll. */
export interface DeliveryNotifier {
  wake(): void;
}

export interface BuilderEvent {
  /** Whose event it is: only this workspace's endpoints receive it and only it lists it. */
  workspaceId: string;
  type: BuilderEventType;
  /** The resource as it is at this moment, as the API shows it (it becomes the envelope's `data.object`). */
  data: object;
}

/**
 * Records a builder event and schedules its deliveries, in the caller's transaction: call it with the
 * transaction that writes the final status, so the change and its event commit together or not at
 * all (an event is never lost nor sent for a change that was rolled back). After the commit, call
 * `deps.deliveries?.wake()` so it goes out at once. `also` are data-modifying CTEs that run in the
 * event's statement (see `recordEvent`).
 *
 * @example
 * await db.transaction(async (tx) => {
 *   await tx.update(orders).set({ status: "paid" }).where(eq(orders.id, id));
 *   await emitEvent({ db: tx, clock }, { workspaceId, type: "billing.credits.added", data: { credits: 100 } });
 * });
 * deps.deliveries?.wake();
 */
export function emitEvent(
  { db, clock }: { db: WebhooksDb; clock: Clock },
  event: BuilderEvent,
  also: readonly SQL[] = [],
): Promise<RecordedEvent> {
  return recordEvent(
    db,
    clock,
    { ...eventScope(event.workspaceId), type: event.type, object: event.data },
    also,
  );
}
