import {
  apiDocs,
  errorHandler,
  healthRoutes,
  limitBody,
  notFoundHandler,
  requestId,
  requestLogger,
  validationHook,
} from "@app/http";
import { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { Deps } from "./deps.ts";
import type { AppEnv } from "./env.ts";

const JSON_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The payment service's HTTP app.
 *
 * @example const app = createPaymentsApp(deps); await listen(app.fetch, { port: 4000 });
 */
export function createPaymentsApp(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use(requestId());
  app.use(requestLogger(deps.logger));
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler);
  app.route(
    "/",
    healthRoutes<AppEnv>(async () => {
      await deps.db.execute(sql`select 1`);
    }),
  );
  app.use("/v1/*", limitBody(JSON_BODY_LIMIT_BYTES));

  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Payment service API",
      version: "0.1.0",
      description: "Payments, refunds, payouts, events and webhooks.",
    },
    servers: [{ url: deps.config.publicUrl }],
  });
  app.get("/v1/openapi.json", (c) => c.json(document));
  app.route("/docs", apiDocs({ specUrl: "/v1/openapi.json", title: "Payment service API" }));
  return app;
}
