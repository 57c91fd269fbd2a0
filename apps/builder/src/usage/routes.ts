import { createRouter, errorResponses, listOf, toPage } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { modelCallSchema, modelCallsQuery, usageQuery, usageSchema } from "./contract.ts";
import { UsageErrors } from "./errors.ts";
import { listModelCalls, toModelCallJson } from "./list-model-calls.ts";
import { summarizeUsage } from "./summarize-usage.ts";

const DEFAULT_RANGE_MS = 30 * 86_400_000;

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
    query: modelCallsQuery,
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
