import { listQuerySchema, patchBody, pathId } from "@app/http";
import { z } from "@hono/zod-openapi";
import { BUILDER_EVENT_TYPES } from "../events/event-types.ts";

/** Endpoints per workspace: every event fans out to each subscribed one. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

const eventsField = z
  .array(z.enum([...BUILDER_EVENT_TYPES, "*"]))
  .min(1)
  .max(BUILDER_EVENT_TYPES.length + 1)
  .openapi({
    description: `Event types to receive (${BUILDER_EVENT_TYPES.join(", ")}), or ["*"] for all`,
    example: ["workflow.run.succeeded", "workflow.run.failed"],
  });

const urlField = z.string().max(2048).openapi({
  description:
    "Where to POST events: https, or http only with ALLOW_PRIVATE_URLS=1; private addresses only with ALLOW_PRIVATE_URLS=1",
  example: "https://example.com/hooks/builder",
});

// Strict: a misspelt field (say `enabled_events`) must not be silently ignored on a PATCH.
export const createWebhookBody = z
  .object({ url: urlField, events: eventsField, description: z.string().max(500).optional() })
  .strict()
  .openapi("CreateWebhookRequest");

export const updateWebhookBody = patchBody(
  z
    .object({
      url: urlField,
      events: eventsField,
      description: z.string().max(500),
      disabled: z.boolean().openapi({ description: "A disabled endpoint's deliveries are parked as failed" }),
    })
    .partial()
    .strict(),
).openapi("UpdateWebhookRequest");

export const replayFailedBody = z
  .object({
    since: z.iso.datetime({ offset: true }).openapi({
      description: "Replay failed deliveries of events since this time",
      example: "2026-03-01T00:00:00Z",
    }),
  })
  .strict()
  .openapi("ReplayFailedDeliveriesRequest");

export const webhookSchema = z
  .object({
    id: z.string().openapi({ example: "we_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    status: z.enum(["enabled", "disabled"]),
    previous_secret_expires_at: z.string().nullable().openapi({
      description: "Until then the secret before the last rotation signs too (a second v1= entry)",
    }),
    created_at: z.string(),
    updated_at: z.string(),
    secret: z.string().optional().openapi({
      description: "The signing secret (whsec_…): only in the answers to create and rotate-secret",
    }),
  })
  .openapi("Webhook");

const attemptSchema = z
  .object({
    id: z.number().int().openapi({ description: "The X-Service-Delivery header of this attempt" }),
    attempted_at: z.string(),
    url: z.string(),
    duration_ms: z.number().int(),
    request_headers: z.record(z.string(), z.string()),
    response_status: z.number().int().nullable(),
    response_body: z.string().nullable().openapi({ description: "The first 4 KiB of the answer" }),
    error: z.string().nullable(),
    success: z.boolean(),
  })
  .openapi("WebhookAttempt");

export const deliverySchema = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(["pending", "retrying", "delivered", "failed"]),
    attempt_count: z.number().int(),
    failure_count: z.number().int().openapi({ description: "Failed attempts in the current series" }),
    next_attempt_at: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    last_response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    replay_count: z.number().int(),
    created_at: z.string(),
    attempts: z.array(attemptSchema).optional().openapi({ description: "Oldest first; kept 90 days" }),
  })
  .openapi("WebhookDelivery");

export const listDeliveriesQuery = listQuerySchema.extend({
  status: z
    .enum(["pending", "retrying", "delivered", "failed"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  event_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "event_id", in: "query" } }),
});

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

/** A delivery of an endpoint, by both ids. */
export const deliveryParams = z.object({ id: pathId("id"), delivery_id: pathId("delivery_id") });

export const replayFailedResult = z
  .object({ replayed: z.number().int() })
  .openapi("ReplayFailedDeliveriesResult");
