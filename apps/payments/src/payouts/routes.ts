import { createRouter, errorResponses, idParam, jsonContent } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { AuthErrors } from "../merchants/errors.ts";
import { amountInput, checkMoney, currencyInput } from "../shared/money.ts";
import { limitQuery, listEnvelope, pageOf } from "../shared/openapi.ts";
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

const defs = {
  create: createRoute({
    method: "post",
    path: "/",
    tags: ["payouts"],
    summary: "Pay out from the available balance (debited at once); honours Idempotency-Key",
    request: { body: { required: true, content: jsonContent(createPayoutBody) } },
    responses: {
      201: { description: "Created (pending until the bank settles it)", content: jsonContent(payoutSchema) },
      ...errorResponses(400, 401, 422),
    },
  }),
  list: createRoute({
    method: "get",
    path: "/",
    tags: ["payouts"],
    summary: "List payouts, newest first",
    request: {
      query: z.object({
        limit: limitQuery,
        starting_after: z
          .string()
          .max(64)
          .optional()
          .openapi({ param: { name: "starting_after", in: "query" } }),
      }),
    },
    responses: {
      200: { description: "A page", content: jsonContent(listEnvelope(payoutSchema)) },
      ...errorResponses(401, 422),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/{id}",
    tags: ["payouts"],
    summary: "Get a payout",
    request: { params: idParam },
    responses: {
      200: { description: "The payout", content: jsonContent(payoutSchema) },
      ...errorResponses(401, 404),
    },
  }),
  helper: createRoute({
    method: "post",
    path: "/payouts/{id}/{action}",
    tags: ["test helpers"],
    summary: "Settle a test-mode payout now; `fail` reverses the debit",
    request: {
      params: z.object({
        id: z
          .string()
          .max(64)
          .openapi({ param: { name: "id", in: "path" } }),
        action: z.enum(["succeed", "fail"]).openapi({ param: { name: "action", in: "path" } }),
      }),
    },
    responses: {
      200: { description: "The payout", content: jsonContent(payoutSchema) },
      ...errorResponses(401, 403, 404, 409),
    },
  }),
};

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
  router.openapi(defs.create, async (c) => {
    const input = c.req.valid("json");
    checkMoney(deps.config.currencies, input.currency, input.amount);
    const row = await createPayout(deps, c.get("merchant"), input, c.get("idempotency"));
    return c.json(toPayoutJson(row), 201);
  });
  router.openapi(defs.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listPayouts(deps.db, c.get("merchant"), {
      limit: query.limit,
      startingAfter: query.starting_after,
    });
    return c.json(pageOf(rows, query.limit, toPayoutJson), 200);
  });
  router.openapi(defs.get, async (c) => {
    const row = await findPayout(deps.db, c.get("merchant"), c.req.valid("param").id);
    if (!row) throw PayoutErrors.PAYOUT_NOT_FOUND();
    return c.json(toPayoutJson(row), 200);
  });
  return router;
}

export function payoutTestHelperRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(defs.helper, async (c) => {
    if (c.get("merchant").environment !== "test") throw AuthErrors.TEST_MODE_ONLY();
    const { id, action } = c.req.valid("param");
    const row = await settlePayout(
      deps,
      c.get("merchant"),
      id,
      action === "succeed" ? "succeeded" : "failed",
    );
    return c.json(toPayoutJson(row), 200);
  });
  return router;
}
