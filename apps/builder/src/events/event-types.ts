/** The builder's event types: what users can subscribe their webhooks to and list at /api/events. */
export const BUILDER_EVENT_TYPES = [
  "workflow.run.succeeded",
  "workflow.run.failed",
  "workflow.run.waiting",
  "document.ready",
  "document.failed",
  "generation.succeeded",
  "generation.failed",
  "billing.credits.added",
] as const;

export type BuilderEventType = (typeof BUILDER_EVENT_TYPES)[number];

/**
 * The `environment` of every builder event. The engine's tables are scoped by owner and environment
 * (the payment service has test and live keys); the builder has one mode.
 */
export const EVENT_ENVIRONMENT = "live";

/**
 * The engine's scope (packages/webhooks) of one workspace's events, endpoints and deliveries.
 *
 * @example await listEndpoints(db, { ...eventScope(workspaceId), limit: 20 });
 */
export function eventScope(workspaceId: string): { ownerId: string; environment: string } {
  return { ownerId: workspaceId, environment: EVENT_ENVIRONMENT };
}
