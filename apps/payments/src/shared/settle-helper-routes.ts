import { createRouter, errorResponses, jsonContent, pathId } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { AuthErrors } from "../merchants/errors.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";

/**
 * `POST /v1/test_helpers/{resource}/{id}/succeed|fail`: settles a test-mode refund or payout now,
 * as the simulated provider or bank does when its time comes. Refunds and payouts settle the same
 * way (pending, then succeeded or failed), so one route serves both; live mode is refused.
 *
 * @example app.route("/v1/test_helpers", settleHelperRoutes({ resource: "payouts", summary, schema: payoutSchema, settle, toJson: toPayoutJson }));
 */
export function settleHelperRoutes<Row, Json>(helper: {
  resource: "refunds" | "payouts";
  summary: string;
  schema: z.ZodType<Json>;
  settle: (scope: MerchantScope, id: string, outcome: "succeeded" | "failed") => Promise<Row>;
  toJson: (row: Row) => Json;
}) {
  const route = createRoute({
    method: "post",
    path: `/${helper.resource}/{id}/{action}`,
    tags: ["test helpers"],
    summary: helper.summary,
    request: {
      params: z.object({
        id: pathId("id"),
        action: z.enum(["succeed", "fail"]).openapi({ param: { name: "action", in: "path" } }),
      }),
    },
    responses: {
      200: { description: `The ${helper.resource.slice(0, -1)}`, content: jsonContent(helper.schema) },
      ...errorResponses(401, 403, 404, 409),
    },
  });
  const router = createRouter<AppEnv>();
  router.openapi(route, async (c) => {
    if (c.get("merchant").environment !== "test") throw AuthErrors.TEST_MODE_ONLY();
    const { id, action } = c.req.valid("param");
    const row = await helper.settle(c.get("merchant"), id, action === "succeed" ? "succeeded" : "failed");
    return c.json(helper.toJson(row), 200);
  });
  return router;
}
