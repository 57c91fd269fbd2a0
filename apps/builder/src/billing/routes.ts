import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { audited, requires } from "../workspaces/roles.ts";
import { toLedgerJson, toOrderJson, toPackJson, toPricesJson } from "./billing-json.ts";
import {
  billingSchema,
  checkoutBody,
  checkoutSchema,
  ledgerEntrySchema,
  orderSchema,
  serviceSignatureHeaders,
  webhookAnswerSchema,
} from "./contract.ts";
import { createCheckout } from "./create-checkout.ts";
import { creditBalance } from "./credit-balance.ts";
import { BillingErrors } from "./errors.ts";
import { listLedger } from "./list-ledger.ts";
import { findOrder, listOrders } from "./orders.ts";
import { receivePaymentWebhook } from "./receive-payment-webhook.ts";

/** Entries and orders `GET /api/billing` shows; the list routes page through the rest. */
const RECENT = 20;

const overviewRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["billing"],
  summary:
    "The workspace's credit balance, the packs for sale, the price table, recent ledger entries and orders",
  responses: { 200: { description: "Billing", content: jsonContent(billingSchema) }, ...errorResponses(401) },
});

const checkoutRoute = createRoute({
  ...audited("billing.checkout"),
  ...requires("admin"),
  method: "post",
  path: "/checkout",
  tags: ["billing"],
  summary: "Buy a credit pack: creates an order and its payment, answers the hosted checkout URL",
  description:
    "The payment is created on the payment service server to server; the credits arrive when the " +
    "payment service reports `payment.succeeded` (webhook, or the reconciler).",
  request: { body: { required: true, content: jsonContent(checkoutBody) } },
  responses: {
    201: { description: "The order and where to pay it", content: jsonContent(checkoutSchema) },
    // 502: the payment service refused or did not answer; 503: payments are not configured.
    ...errorResponses(400, 401, 413, 415, 422, 502, 503),
  },
});

const ledgerRoute = createRoute({
  method: "get",
  path: "/ledger",
  tags: ["billing"],
  summary: "The workspace's credit ledger, newest first",
  request: { query: listQuerySchema },
  responses: {
    200: {
      description: "A page of entries",
      content: jsonContent(listOf(ledgerEntrySchema).openapi("LedgerList")),
    },
    ...errorResponses(401, 422),
  },
});

const ordersRoute = createRoute({
  method: "get",
  path: "/orders",
  tags: ["billing"],
  summary: "The workspace's credit orders, newest first",
  request: { query: listQuerySchema },
  responses: {
    200: {
      description: "A page of orders",
      content: jsonContent(listOf(orderSchema).openapi("CreditOrderList")),
    },
    ...errorResponses(401, 422),
  },
});

const orderRoute = createRoute({
  method: "get",
  path: "/orders/{id}",
  tags: ["billing"],
  summary: "One order (poll it after the checkout to see it paid)",
  request: { params: idParam },
  responses: {
    200: { description: "The order", content: jsonContent(orderSchema) },
    ...errorResponses(401, 404),
  },
});

const webhookRoute = createRoute({
  method: "post",
  path: "/webhook",
  tags: ["billing"],
  summary: "The payment service's signed events (no session: verified by X-Service-Signature)",
  description:
    "The raw body is verified against `X-Service-Signature` (`t=<unix>,v1=<hex>`, HMAC-SHA256 over " +
    "`<t>.<body>` with the endpoint's signing secret, 300 s tolerance) and applied once by event id.",
  security: [],
  request: {
    headers: serviceSignatureHeaders,
  },
  responses: {
    200: { description: "Received", content: jsonContent(webhookAnswerSchema) },
    // 400: the signature does not verify or the body is no event; 503: the endpoint is not registered yet.
    ...errorResponses(400, 413, 503),
  },
});

/**
 * `/api/billing`: the balance and packs, checkout, the ledger and orders, and the payment service's
 * webhook (public: the app lets `BILLING_WEBHOOK_PATH` through without a session).
 *
 * @example app.route("/api/billing", billingRoutes(deps));
 */
export function billingRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(overviewRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const [balance, ledger, orders] = await Promise.all([
      creditBalance(deps.db, workspaceId),
      listLedger(deps.db, workspaceId, { limit: RECENT }),
      listOrders(deps.db, workspaceId, { limit: RECENT }),
    ]);
    const { billing } = deps.config;
    return c.json(
      {
        balance,
        enforced: billing.enforce,
        packs: billing.packs.map(toPackJson),
        prices: toPricesJson(billing.prices),
        ledger: ledger.slice(0, RECENT).map(toLedgerJson),
        orders: orders.slice(0, RECENT).map(toOrderJson),
      },
      200,
    );
  });
  router.openapi(checkoutRoute, async (c) => {
    const checkout = await createCheckout(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json(
      {
        order: toOrderJson(checkout.order),
        payment_id: checkout.paymentId,
        checkout_url: checkout.checkoutUrl,
      },
      201,
    );
  });
  router.openapi(ledgerRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listLedger(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toLedgerJson), 200);
  });
  router.openapi(ordersRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listOrders(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toOrderJson), 200);
  });
  router.openapi(orderRoute, async (c) => {
    const row = await findOrder(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw BillingErrors.ORDER_NOT_FOUND();
    return c.json(toOrderJson(row), 200);
  });
  router.openapi(webhookRoute, async (c) => {
    // The signature covers the exact bytes, so the body is read raw, never parsed and re-serialised.
    const rawBody = await c.req.text();
    const outcome = await receivePaymentWebhook(deps, {
      header: c.req.header("x-service-signature"),
      rawBody,
    });
    return c.json({ received: true as const, outcome }, 200);
  });
  return router;
}
