import { createRouter, errorResponses, jsonContent, resourceRoutes } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { AuthErrors } from "../merchants/errors.ts";
import { checkMoney } from "../shared/money.ts";
import { listEnvelope, pageOf } from "../shared/openapi.ts";
import { createPaymentBody, listPaymentsQuery, paymentHelperParams, paymentSchema } from "./contract.ts";
import { createPayment } from "./create-payment.ts";
import { PaymentErrors } from "./errors.ts";
import { findPayment } from "./find-payment.ts";
import { listPayments } from "./list-payments.ts";
import { toPaymentJson } from "./payment-json.ts";
import { simulatePayment } from "./simulate-payment.ts";

const routes = resourceRoutes({ tag: "payments", schema: paymentSchema });

const createRouteDef = routes.create({
  summary: "Create a payment (status pending); honours Idempotency-Key",
  description: "Created",
  body: createPaymentBody,
  errors: [400, 401, 409, 413, 422],
});

const listRouteDef = routes.list({
  summary: "List payments, newest first",
  description: "A page of payments",
  query: listPaymentsQuery,
  page: listEnvelope(paymentSchema),
});

const getRouteDef = routes.get({ summary: "Get a payment", description: "The payment" });

/**
 * POST /v1/payments retried after its process died: the payment it created, as its answer.
 *
 * @example idempotency(deps, { "/v1/payments": recoverPayment(deps) })
 */
export function recoverPayment(deps: Deps): IdempotencyRecoverer {
  return async (scope, id) => {
    const row = await findPayment(deps.db, scope, id);
    return row && { status: 201, body: toPaymentJson(row, deps.config.publicUrl) };
  };
}

export function paymentRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(createRouteDef, async (c) => {
    const input = c.req.valid("json");
    checkMoney(deps.config.currencies, input.currency, input.amount);
    const row = await createPayment(deps, c.get("merchant"), input, c.get("idempotency"));
    return c.json(toPaymentJson(row, deps.config.publicUrl), 201);
  });
  router.openapi(listRouteDef, async (c) => {
    const query = c.req.valid("query");
    const rows = await listPayments(deps.db, c.get("merchant"), {
      limit: query.limit,
      startingAfter: query.starting_after,
      status: query.status,
    });
    return c.json(
      pageOf(rows, query.limit, (row) => toPaymentJson(row, deps.config.publicUrl)),
      200,
    );
  });
  router.openapi(getRouteDef, async (c) => {
    const row = await findPayment(deps.db, c.get("merchant"), c.req.valid("param").id);
    if (!row) throw PaymentErrors.PAYMENT_NOT_FOUND();
    return c.json(toPaymentJson(row, deps.config.publicUrl), 200);
  });
  return router;
}

const helperRouteDef = createRoute({
  method: "post",
  path: "/payments/{id}/{action}",
  tags: ["test helpers"],
  summary: "Simulate the provider moving a test-mode payment",
  request: {
    params: paymentHelperParams,
  },
  responses: {
    200: { description: "The moved payment", content: jsonContent(paymentSchema) },
    ...errorResponses(401, 403, 404, 409),
  },
});

export function paymentTestHelperRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.use("*", async (c, next) => {
    if (c.get("merchant").environment !== "test") throw AuthErrors.TEST_MODE_ONLY();
    return next();
  });
  router.openapi(helperRouteDef, async (c) => {
    const { id, action } = c.req.valid("param");
    const row = await simulatePayment(deps, c.get("merchant"), id, action);
    return c.json(toPaymentJson(row, deps.config.publicUrl), 200);
  });
  return router;
}
