import { createRouter, errorResponses } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { PROVIDERS } from "./catalogue.ts";

const capability = z.enum(["chat", "tools", "vision", "embeddings", "json"]);

const providerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    env_key: z.string().nullable(),
    requires_base_url: z.boolean(),
    docs_url: z.string(),
    models: z.array(
      z.object({ id: z.string(), capabilities: z.array(capability), context_window: z.number().optional() }),
    ),
  })
  .openapi("Provider");

const listProvidersRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["providers"],
  summary: "The AI providers agents can use, with their models and capabilities",
  responses: {
    200: {
      description: "Every provider",
      content: { "application/json": { schema: z.object({ data: z.array(providerSchema) }) } },
    },
    ...errorResponses(401),
  },
});

export function providerRoutes() {
  const router = createRouter<AppEnv>();
  router.openapi(listProvidersRoute, (c) => c.json({ data: PROVIDERS.map((p) => ({ ...p })) }, 200));
  return router;
}
