import { createRouter, errorResponses, jsonContent } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { balanceSchema } from "./contract.ts";
import { getBalance } from "./get-balance.ts";

const balanceRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["balance"],
  summary: "The available balance per currency, from the ledger",
  responses: {
    200: { description: "The balance", content: jsonContent(balanceSchema) },
    ...errorResponses(401),
  },
});

export function balanceRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(balanceRoute, async (c) => c.json(await getBalance(deps.db, c.get("merchant")), 200));
  return router;
}
