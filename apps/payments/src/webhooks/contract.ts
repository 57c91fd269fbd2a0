import { patchBody } from "@app/http";
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../events/types.ts";
import { limitQuery, startingAfterQuery } from "../shared/openapi.ts";

export const enabledEvents = z
  .array(z.enum([...EVENT_TYPES, "*"]))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .openapi({ example: ["payment.succeeded", "payment.failed"] });

export const createEndpointBody = z
  .object({
    url: z.string().max(2048),
    enabled_events: enabledEvents,
    description: z.string().max(500).optional(),
  })
  .strict()
  .openapi("CreateWebhookEndpointRequest");

export const updateEndpointBody = patchBody(
  z
    .object({
      url: z.string().max(2048),
      enabled_events: enabledEvents,
      description: z.string().max(500),
      disabled: z.boolean(),
    })
    .partial()
    .strict(),
).openapi("UpdateWebhookEndpointRequest");

export const endpointSchema = z
  .object({
    id: z.string(),
    object: z.literal("webhook_endpoint"),
    url: z.string(),
    description: z.string(),
    enabled_events: z.array(z.string()),
    status: z.enum(["enabled", "disabled"]),
    environment: z.string(),
    created: z.number().int(),
    secret: z.string().optional().openapi({ description: "Only in the answer to create and rotate_secret." }),
  })
  .openapi("WebhookEndpoint");

const attemptSchema = z.object({
  id: z.number().int(),
  object: z.literal("webhook_attempt"),
  created: z.number().int(),
  url: z.string(),
  duration_ms: z.number().int(),
  request_headers: z.record(z.string(), z.string()),
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  success: z.boolean(),
});

export const deliverySchema = z
  .object({
    id: z.string(),
    object: z.literal("webhook_delivery"),
    endpoint: z.string(),
    event: z.string(),
    event_type: z.string(),
    status: z.enum(["pending", "retrying", "delivered", "failed"]),
    attempt_count: z.number().int(),
    failure_count: z.number().int(),
    next_attempt_at: z.number().int().nullable(),
    last_attempt_at: z.number().int().nullable(),
    last_response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    replay_count: z.number().int(),
    created: z.number().int(),
    attempts: z.array(attemptSchema).optional(),
  })
  .openapi("WebhookDelivery");

export const listEndpointsQuery = z.object({
  limit: limitQuery,
  starting_after: startingAfterQuery("we", "a webhook endpoint"),
});

/** The answer of a delete, as Stripe gives it. */
export const deletedEndpointSchema = z.object({
  id: z.string(),
  object: z.literal("webhook_endpoint"),
  deleted: z.literal(true),
});

export const listDeliveriesQuery = z.object({
  limit: limitQuery,
  starting_after: startingAfterQuery("wd", "a webhook delivery"),
  endpoint: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "endpoint", in: "query" } }),
  event: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "event", in: "query" } }),
  status: z
    .enum(["pending", "retrying", "delivered", "failed"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
});
