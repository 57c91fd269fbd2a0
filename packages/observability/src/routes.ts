import { createRouter, errorResponses } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { ServiceMetrics } from "./metrics.ts";

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["health"],
  summary: "Prometheus metrics",
  description:
    "The Prometheus text exposition (format 0.0.4). Open unless the service has a `METRICS_TOKEN`; then it needs `Authorization: Bearer <METRICS_TOKEN>`.",
  security: [],
  responses: {
    200: {
      description: "The metrics",
      content: {
        "text/plain": {
          schema: z.string().openapi({ example: "# TYPE http_request_duration_seconds histogram" }),
        },
      },
    },
    ...errorResponses(401),
  },
});

/**
 * `GET /metrics`, documented in the service's OpenAPI document.
 *
 * @example app.route("/", metricsRoutes<AppEnv>(metrics));
 */
export function metricsRoutes<E extends Env>(metrics: ServiceMetrics) {
  const router = createRouter<E>();
  // The exposition is a raw text Response, which the typed JSON responses of OpenAPIHono cannot name.
  router.openapi(metricsRoute, (c) => metrics.handler(c) as never);
  return router;
}
