import type { AttemptRow, DeliveryRow, EndpointRow } from "@app/webhooks";
import type { z } from "@hono/zod-openapi";
import type { deliverySchema, webhookSchema } from "./contract.ts";

/**
 * An endpoint as the builder's API shows it; the secret only right after creation or rotation.
 *
 * @example c.json(toWebhookJson(row, { secret }), 201)
 */
export function toWebhookJson(
  row: EndpointRow,
  reveal: { secret?: string } = {},
): z.infer<typeof webhookSchema> {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.enabledEvents,
    status: row.isDisabled ? "disabled" : "enabled",
    previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(reveal.secret === undefined ? {} : { secret: reveal.secret }),
  };
}

/**
 * A delivery (one event to one endpoint) with its attempt records when given.
 *
 * @example c.json(toWebhookDeliveryJson(found.delivery, found.attempts), 200)
 */
export function toWebhookDeliveryJson(
  row: DeliveryRow,
  attempts?: AttemptRow[],
): z.infer<typeof deliverySchema> {
  const isScheduled = row.status === "pending" || row.status === "retrying";
  return {
    id: row.id,
    webhook_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempt_count: row.attemptCount,
    failure_count: row.failureCount,
    next_attempt_at: isScheduled && row.nextAttemptAt ? row.nextAttemptAt.toISOString() : null,
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
    last_response_status: row.lastResponseStatus,
    last_error: row.lastError,
    replay_count: row.replayCount,
    created_at: row.createdAt.toISOString(),
    ...(attempts === undefined
      ? {}
      : {
          attempts: attempts.map((attempt) => ({
            id: attempt.id,
            attempted_at: attempt.attemptedAt.toISOString(),
            url: attempt.url,
            duration_ms: attempt.durationMs,
            request_headers: attempt.requestHeaders,
            response_status: attempt.responseStatus,
            response_body: attempt.responseBody,
            error: attempt.error,
            success: attempt.isSuccess,
          })),
        }),
  };
}
