import { createRouter, errorResponses, listOf, listQuerySchema, toPage } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { UsageErrors } from "./errors.ts";
import { listModelCalls, toModelCallJson } from "./list-model-calls.ts";
import { summarizeUsage } from "./summarize-usage.ts";

const DEFAULT_RANGE_MS = 30 * 86_400_000;

const usageQuery = z.object({
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

const usageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    data: z.array(usageRowSchema),
    totals: usageRowSchema.omit({ provider: true, model: true, avg_latency_ms: true }),
  })
  .openapi("Usage");

const modelCallSchema = z
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

const usageRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["usage"],
  summary: "Model calls and tokens per provider and model over a time range",
  request: { query: usageQuery },
  responses: {
    200: { description: "Usage", content: { "application/json": { schema: usageSchema } } },
    ...errorResponses(401, 422),
  },
});

const callsRoute = createRoute({
  method: "get",
  path: "/calls",
  tags: ["usage"],
  summary: "Every model call, newest first",
  request: {
    query: listQuerySchema.extend({
      agent_id: z
        .string()
        .max(64)
        .optional()
        .openapi({ param: { name: "agent_id", in: "query" } }),
    }),
  },
  responses: {
    200: {
      description: "A page of model calls",
      content: { "application/json": { schema: listOf(modelCallSchema).openapi("ModelCallList") } },
    },
    ...errorResponses(401, 422),
  },
});

export function usageRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(usageRoute, async (c) => {
    const query = c.req.valid("query");
    const to = query.to ? new Date(query.to) : deps.clock.now();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_RANGE_MS);
    if (from >= to) throw UsageErrors.INVALID_RANGE({ param: "from" });
    const usage = await summarizeUsage(deps.db, c.get("principal").workspaceId, { from, to });
    return c.json({ from: from.toISOString(), to: to.toISOString(), ...usage }, 200);
  });
  router.openapi(callsRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listModelCalls(deps.db, c.get("principal").workspaceId, {
      limit: query.limit,
      cursor: query.cursor,
      agentId: query.agent_id,
    });
    return c.json(
      toPage(rows, query.limit, (row) => ({
        ...toModelCallJson(row),
        status: row.status as "succeeded" | "failed" | "aborted",
      })),
      200,
    );
  });
  return router;
}
