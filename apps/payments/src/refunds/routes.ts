import { createRouter, resourceRoutes } from "@app/http";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { listEnvelope, pageOf } from "../shared/openapi.ts";
import { settleHelperRoutes } from "../shared/settle-helper-routes.ts";
import { createRefundBody, listRefundsQuery, refundSchema } from "./contract.ts";
import { createRefund } from "./create-refund.ts";
import { RefundErrors } from "./errors.ts";
import { findRefund } from "./find-refund.ts";
import { listRefunds } from "./list-refunds.ts";
import { toRefundJson } from "./refund-json.ts";
import { settleRefund } from "./settle-refund.ts";

const routes = resourceRoutes({ tag: "refunds", schema: refundSchema });

const createRouteDef = routes.create({
  summary: "Refund a succeeded payment (default: what remains); honours Idempotency-Key",
  description: "Created (pending until the provider settles it)",
  body: createRefundBody,
  errors: [400, 401, 404, 409, 422],
});

const listRouteDef = routes.list({
  summary: "List refunds, newest first",
  description: "A page",
  query: listRefundsQuery,
  page: listEnvelope(refundSchema),
});

const getRouteDef = routes.get({ summary: "Get a refund", description: "The refund" });

/**
 * POST /v1/refunds retried after its process died: the refund it created, as its answer.
 *
 * @example idempotency(deps, { "/v1/refunds": recoverRefund(deps) })
 */
export function recoverRefund(deps: Deps): IdempotencyRecoverer {
  return async (scope, id) => {
    const row = await findRefund(deps.db, scope, id);
    return row && { status: 201, body: toRefundJson(row) };
  };
}

export function refundRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(createRouteDef, async (c) => {
    const input = c.req.valid("json");
    const row = await createRefund(
      deps,
      c.get("merchant"),
      { payment: input.payment, amount: input.amount },
      c.get("idempotency"),
    );
    return c.json(toRefundJson(row), 201);
  });
  router.openapi(listRouteDef, async (c) => {
    const query = c.req.valid("query");
    const rows = await listRefunds(deps.db, c.get("merchant"), {
      limit: query.limit,
      startingAfter: query.starting_after,
      payment: query.payment,
    });
    return c.json(pageOf(rows, query.limit, toRefundJson), 200);
  });
  router.openapi(getRouteDef, async (c) => {
    const row = await findRefund(deps.db, c.get("merchant"), c.req.valid("param").id);
    if (!row) throw RefundErrors.REFUND_NOT_FOUND();
    return c.json(toRefundJson(row), 200);
  });
  return router;
}

export function refundTestHelperRoutes(deps: Deps) {
  return settleHelperRoutes({
    resource: "refunds",
    summary: "Settle a test-mode refund now, as succeeded or failed",
    schema: refundSchema,
    settle: (scope, id, outcome) => settleRefund(deps, scope, id, outcome),
    toJson: toRefundJson,
  });
}
