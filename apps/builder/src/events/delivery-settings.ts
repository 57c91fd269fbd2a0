/** How this process delivers the builder's events; tests change them through `Deps.eventDelivery`. */
export interface EventDeliverySettings {
  /** Whether `start()` runs the delivery engine in this process (tests may drive `runDue()` themselves). */
  isInline: boolean;
  /** How often an idle engine looks for due deliveries; committed events wake it sooner. */
  pollIntervalMs: number;
  /** How often attempt records older than 90 days are pruned. */
  retentionIntervalMs: number;
}

export const DEFAULT_EVENT_DELIVERY: EventDeliverySettings = {
  isInline: true,
  // Every commit that records an event wakes this process's engine, so polling only finds
  // retries that came due (minutes apart) and work of other instances: once a second is plenty,
  // and on the embedded database each poll waits in line with the requests.
  pollIntervalMs: 1_000,
  retentionIntervalMs: 3_600_000,
};
