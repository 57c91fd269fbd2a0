import { createRouter, errorResponses, idParam, jsonContent } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import type { IdempotencyRecoverer } from "../idempotency/idempotency.ts";
import { AuthErrors } from "../merchants/errors.ts";
import { amountInput } from "../shared/money.ts";
import { limitQuery, listEnvelope, pageOf, startingAfterQuery } from "../shared/openapi.ts";
import { createRefund } from "./create-refund.ts";
import { RefundErrors } from "./errors.ts";
import { findRefund } from "./find-refund.ts";
import { listRefunds } from "./list-refunds.ts";
import { toRefundJson } from "./refund-json.ts";
import { settleRefund } from "./settle-refund.ts";

const createRefundBody = z
  .object({ payment: z.string().max(64), amount: amountInput.optional() })
  .strict()
  .openapi("CreateRefundRequest");

const refundSchema = z
  .object({
    id: z.string(),
    object: z.literal("refund"),
    payment: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    failure_reason: z.string().nullable(),
    environment: z.string(),
    created: z.number().int(),
  })
  .openapi("Refund");

const defs = {
  create: createRoute({
    method: "post",
    path: "/",
    tags: ["refunds"],
    summary: "Refund a succeeded payment (default: what remains); honours Idempotency-Key",
    request: { body: { required: true, content: jsonContent(createRefundBody) } },
    responses: {
      201: {
        description: "Created (pending until the provider settles it)",
        content: jsonContent(refundSchema),
      },
      ...errorResponses(400, 401, 404, 409, 422),
    },
  }),
  list: createRoute({
    method: "get",
    path: "/",
    tags: ["refunds"],
    summary: "List refunds, newest first",
    request: {
      query: z.object({
        limit: limitQuery,
        starting_after: startingAfterQuery,
        payment: z
          .string()
          .max(64)
          .optional()
          .openapi({ param: { name: "payment", in: "query" } }),
      }),
    },
    responses: {
      200: { description: "A page", content: jsonContent(listEnvelope(refundSchema)) },
      ...errorResponses(401, 422),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/{id}",
    tags: ["refunds"],
    summary: "Get a refund",
    request: { params: idParam },
    responses: {
      200: { description: "The refund", content: jsonContent(refundSchema) },
      ...errorResponses(401, 404),
    },
  }),
  helper: createRoute({
    method: "post",
    path: "/refunds/{id}/{action}",
    tags: ["test helpers"],
    summary: "Settle a test-mode refund now, as succeeded or failed",
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
      200: { description: "The refund", content: jsonContent(refundSchema) },
      ...errorResponses(401, 403, 404, 409),
    },
  }),
};

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
  router.openapi(defs.create, async (c) => {
    const input = c.req.valid("json");
    const row = await createRefund(
      deps,
      c.get("merchant"),
      { payment: input.payment, amount: input.amount },
      c.get("idempotency"),
    );
    return c.json(toRefundJson(row), 201);
  });
  router.openapi(defs.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listRefunds(deps.db, c.get("merchant"), {
      limit: query.limit,
      startingAfter: query.starting_after,
      payment: query.payment,
    });
    return c.json(pageOf(rows, query.limit, toRefundJson), 200);
  });
  router.openapi(defs.get, async (c) => {
    const row = await findRefund(deps.db, c.get("merchant"), c.req.valid("param").id);
    if (!row) throw RefundErrors.REFUND_NOT_FOUND();
    return c.json(toRefundJson(row), 200);
  });
  return router;
}

export function refundTestHelperRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(defs.helper, async (c) => {
    if (c.get("merchant").environment !== "test") throw AuthErrors.TEST_MODE_ONLY();
    const { id, action } = c.req.valid("param");
    const row = await settleRefund(
      deps,
      c.get("merchant"),
      id,
      action === "succeed" ? "succeeded" : "failed",
    );
    return c.json(toRefundJson(row), 200);
  });
  return router;
}
