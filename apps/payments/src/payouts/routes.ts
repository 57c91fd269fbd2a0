import { createRouter, resourceRoutes } from "@app/http";
import { z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { amountInput, checkMoney, currencyInput } from "../shared/money.ts";
import { limitQuery, listEnvelope, pageOf } from "../shared/openapi.ts";
import { settleHelperRoutes } from "../shared/settle-helper-routes.ts";
import { createPayout } from "./create-payout.ts";
import { PayoutErrors } from "./errors.ts";
import { findPayout } from "./find-payout.ts";
import { listPayouts } from "./list-payouts.ts";
import { toPayoutJson } from "./payout-json.ts";
import { settlePayout } from "./settle-payout.ts";

const createPayoutBody = z
  .object({
    amount: amountInput,
    currency: currencyInput,
    destination: z
      .object({
        bank_code: z.string().regex(/^[A-Za-z0-9]{2,11}$/, "must be a bank code such as BCA or 014"),
        account_number: z.string().regex(/^\d{5,34}$/, "must be 5 to 34 digits"),
        account_name: z.string().trim().min(1).max(100),
      })
      .strict(),
  })
  .strict()
  .openapi("CreatePayoutRequest");

const payoutSchema = z
  .object({
    id: z.string(),
    object: z.literal("payout"),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    destination: z.object({
      bank_code: z.string(),
      account_number_last4: z.string(),
      account_name: z.string(),
    }),
    failure_reason: z.string().nullable(),
    environment: z.string(),
    created: z.number().int(),
  })
  .openapi("Payout");

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
  query: z.object({
    limit: limitQuery,
    starting_after: z
      .string()
      .max(64)
      .optional()
      .openapi({ param: { name: "starting_after", in: "query" } }),
  }),
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
