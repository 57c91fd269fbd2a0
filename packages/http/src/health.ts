import { createRoute, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { createRouter } from "./app.ts";
import { errorResponses } from "./openapi.ts";

const statusBody = z.object({ status: z.enum(["ok", "unavailable"]) }).openapi("HealthStatus");

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["health"],
  summary: "Liveness: the process answers",
  responses: { 200: { description: "Alive", content: { "application/json": { schema: statusBody } } } },
});

const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  tags: ["health"],
  summary: "Readiness: the database answers",
  responses: {
    200: { description: "Ready", content: { "application/json": { schema: statusBody } } },
    503: { description: "Not ready", content: { "application/json": { schema: statusBody } } },
    ...errorResponses(),
  },
});

/**
 * `/healthz` (process alive) and `/readyz` (dependencies answer, checked by `isReady`).
 *
 * @example app.route("/", healthRoutes(async () => { await db.execute(sql`select 1`); }))
 */
export function healthRoutes<E extends Env>(checkReady: () => Promise<void>) {
  const router = createRouter<E>();
  router.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  router.openapi(readyRoute, async (c) => {
    try {
      await checkReady();
      return c.json({ status: "ok" as const }, 200);
    } catch {
      return c.json({ status: "unavailable" as const }, 503);
    }
  });
  return router;
}
