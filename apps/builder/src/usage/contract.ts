import { listQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";

export const usageQuery = z.object({
  from: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ param: { name: "from", in: "query" }, description: "Inclusive; default 30 days before `to`" }),
  to: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ param: { name: "to", in: "query" }, description: "Exclusive; default now" }),
});

const usageRowSchema = z.object({
  provider: z.string(),
  model: z.string(),
  calls: z.number().int(),
  failed_calls: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  avg_latency_ms: z.number().int(),
});

export const usageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    data: z.array(usageRowSchema),
    totals: usageRowSchema.omit({ provider: true, model: true, avg_latency_ms: true }),
  })
  .openapi("Usage");

export const modelCallSchema = z
  .object({
    id: z.string(),
    source: z.string(),
    agent_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    provider: z.string(),
    model: z.string(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    latency_ms: z.number().int(),
    status: z.enum(["succeeded", "failed", "aborted"]),
    created_at: z.string(),
  })
  .openapi("ModelCall");

export const modelCallsQuery = listQuerySchema.extend({
  agent_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "agent_id", in: "query" } }),
});
