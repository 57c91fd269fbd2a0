import { createRouter, resourceRoutes } from "@app/http";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { checkMoney } from "../shared/money.ts";
import { listEnvelope, pageOf } from "../shared/openapi.ts";
import { settleHelperRoutes } from "../shared/settle-helper-routes.ts";
import { createPayoutBody, listPayoutsQuery, payoutSchema } from "./contract.ts";
import { createPayout } from "./create-payout.ts";
import { PayoutErrors } from "./errors.ts";
import { findPayout } from "./find-payout.ts";
import { listPayouts } from "./list-payouts.ts";
import { toPayoutJson } from "./payout-json.ts";
import { settlePayout } from "./settle-payout.ts";

const routes = resourceRoutes({ tag: "payouts", schema: payoutSchema });

const createRouteDef = routes.create({
  summary: "Pay out from the available balance (debited at once); honours Idempotency-Key",
  description: "Created (pending until the bank settles it)",
  body: createPayoutBody,
  errors: [400, 401, 422],
});

const listRouteDef = routes.list({
  summary: "List payouts, newest first",
  description: "A page",
  query: listPayoutsQuery,
  page: listEnvelope(payoutSchema),
});

const getRouteDef = routes.get({ summary: "Get a payout", description: "The payout" });

/**
 * POST /v1/payouts retried after its process died: the payout it created, as its answer.
 *
 * @example idempotency(deps, { "/v1/payouts": recoverPayout(deps) })
 */
export function recoverPayout(deps: Deps): IdempotencyRecoverer {
  return async (scope, id) => {
    const row = await findPayout(deps.db, scope, id);
    return row && { status: 201, body: toPayoutJson(row) };
  };
}

export function payoutRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(createRouteDef, async (c) => {
    const input = c.req.valid("json");
    checkMoney(deps.config.currencies, input.currency, input.amount);
    const row = await createPayout(deps, c.get("merchant"), input, c.get("idempotency"));
    return c.json(toPayoutJson(row), 201);
  });
  router.openapi(listRouteDef, async (c) => {
    const query = c.req.valid("query");
    const rows = await listPayouts(deps.db, c.get("merchant"), {
      limit: query.limit,
      startingAfter: query.starting_after,
    });
    return c.json(pageOf(rows, query.limit, toPayoutJson), 200);
  });
  router.openapi(getRouteDef, async (c) => {
    const row = await findPayout(deps.db, c.get("merchant"), c.req.valid("param").id);
    if (!row) throw PayoutErrors.PAYOUT_NOT_FOUND();
    return c.json(toPayoutJson(row), 200);
  });
  return router;
}

export function payoutTestHelperRoutes(deps: Deps) {
  return settleHelperRoutes({
    resource: "payouts",
    summary: "Settle a test-mode payout now; `fail` reverses the debit",
    schema: payoutSchema,
    settle: (scope, id, outcome) => settlePayout(deps, scope, id, outcome),
    toJson: toPayoutJson,
  });
}
