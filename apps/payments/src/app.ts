import {
  apiDocs,
  completeErrorResponses,
  compressJson,
  errorHandler,
  guardInput,
  healthRoutes,
  limitBody,
  notFoundHandler,
  requestId,
  requestLogger,
  validationHook,
} from "@app/http";
import { metricsRoutes, traceRequests } from "@app/observability";
import { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { checkoutRoutes } from "./checkout/routes.ts";
import { dashboardRoutes } from "./dashboard/routes.ts";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./env.ts";
import { eventRoutes } from "./events/routes.ts";
import { declareIdempotency, idempotency } from "./idempotency/idempotency.ts";
import { balanceRoutes } from "./ledger/routes.ts";
import { requireSecretKey } from "./merchants/auth.ts";
import { paymentsMetrics } from "./metrics.ts";
import { paymentRoutes, paymentTestHelperRoutes, recoverPayment } from "./payments/routes.ts";
import { payoutRoutes, payoutTestHelperRoutes, recoverPayout } from "./payouts/routes.ts";
import { recoverRefund, refundRoutes, refundTestHelperRoutes } from "./refunds/routes.ts";
import { describeCurrencies } from "./shared/money.ts";
import { recoverWebhookEndpoint, webhookDeliveryRoutes, webhookEndpointRoutes } from "./webhooks/routes.ts";

const JSON_BODY_LIMIT_BYTES = 256 * 1024;
const PUBLIC_V1_PATHS = new Set(["/v1/openapi.json"]);

/**
 * The payment service's HTTP app.
 *
 * @example const app = createPaymentsApp(deps); await listen(app.fetch, { port: 4000 });
 */
export function createPaymentsApp(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const metrics = paymentsMetrics(deps);
  app.use(requestId());
  app.use(compressJson());
  app.use(traceRequests((c) => ({ "merchant.id": c.var.merchant?.merchantId })));
  app.use(metrics.middleware);
  app.use(requestLogger(deps.logger));
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler);
  app.route(
    "/",
    healthRoutes<AppEnv>(async () => {
      await deps.db.execute(sql`select 1`);
    }),
  );
  app.route("/", metricsRoutes<AppEnv>(metrics));
  // Every route, the checkout's and dashboard's forms too: the input guard reads bodies whole.
  app.use(limitBody(JSON_BODY_LIMIT_BYTES));
  app.use(guardInput());
  const authenticate = requireSecretKey(deps);
  app.use("/v1/*", (c, next) => (PUBLIC_V1_PATHS.has(c.req.path) ? next() : authenticate(c, next)));
  // The creations that write a recovery point, and so are fenced by the request deadline.
  const recoverers = {
    "/v1/payments": recoverPayment(deps),
    "/v1/refunds": recoverRefund(deps),
    "/v1/payouts": recoverPayout(deps),
    "/v1/webhook_endpoints": recoverWebhookEndpoint(deps),
  };
  app.use("/v1/*", idempotency(deps, recoverers));

  app.route("/v1/payments", paymentRoutes(deps));
  app.route("/v1/refunds", refundRoutes(deps));
  app.route("/v1/payouts", payoutRoutes(deps));
  app.route("/v1/balance", balanceRoutes(deps));
  app.route("/v1/events", eventRoutes(deps));
  app.route("/v1/webhook_endpoints", webhookEndpointRoutes(deps));
  app.route("/v1/webhook_deliveries", webhookDeliveryRoutes(deps));
  app.route("/v1/test_helpers", paymentTestHelperRoutes(deps));
  app.route("/v1/test_helpers", refundTestHelperRoutes(deps));
  app.route("/v1/test_helpers", payoutTestHelperRoutes(deps));
  app.route("/checkout", checkoutRoutes(deps));
  app.route("/dashboard", dashboardRoutes(deps));

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A merchant secret key, sk_test_… or sk_live_…",
  });
  // Built on the first request for it, not at start: walking every route's schemas is start-up time
  // that no other request needs.
  const buildDocument = () =>
    declareIdempotency(
      completeErrorResponses(
        describeCurrencies(
          app.getOpenAPI31Document({
            openapi: "3.1.0",
            info: {
              title: "Payment service API",
              version: "0.1.0",
              description: "Payments, refunds, payouts, events and webhooks.",
            },
            servers: [{ url: deps.config.publicUrl }],
            security: [{ bearerAuth: [] }],
          }),
          deps.config.currencies,
        ),
      ),
      Object.keys(recoverers),
    );
  let document: ReturnType<typeof buildDocument> | undefined;
  app.get("/v1/openapi.json", (c) => {
    document ??= buildDocument();
    return c.json(document);
  });
  app.route("/docs", apiDocs({ specUrl: "/v1/openapi.json", title: "Payment service API" }));
  return app;
}
