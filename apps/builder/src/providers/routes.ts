import { createRouter, errorResponses } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { PROVIDERS } from "./catalogue.ts";
import { listProviderModels } from "./list-provider-models.ts";

const capability = z.enum(["chat", "tools", "vision", "embeddings", "json"]);

const providerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    env_key: z.string().nullable(),
    requires_base_url: z.boolean(),
    default_base_url: z.string().nullable(),
    docs_url: z.string(),
    models: z.array(
      z.object({ id: z.string(), capabilities: z.array(capability), context_window: z.number().optional() }),
    ),
  })
  .openapi("Provider");

const providerModelsSchema = z
  .object({
    provider: z.string(),
    data: z.array(
      z.object({
        id: z.string(),
        capabilities: z
          .array(capability)
          .openapi({ description: "Empty when only the live listing knows the model" }),
        context_window: z.number().optional(),
        source: z.enum(["catalogue", "live", "both"]),
      }),
    ),
    live: z.object({ status: z.enum(["ok", "not_configured", "failed"]), message: z.string().nullable() }),
  })
  .openapi("ProviderModels");

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

const listModelsRoute = createRoute({
  method: "get",
  path: "/{id}/models",
  tags: ["providers"],
  summary:
    "A provider's models: the catalogue merged with the provider's live listing for the workspace's key",
  request: {
    params: z.object({
      id: z
        .string()
        .max(64)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
    query: z.object({
      credential_id: z
        .string()
        .max(64)
        .optional()
        .openapi({ param: { name: "credential_id", in: "query" } }),
    }),
  },
  responses: {
    200: { description: "The models", content: { "application/json": { schema: providerModelsSchema } } },
    ...errorResponses(401, 404, 422),
  },
});

export function providerRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listProvidersRoute, (c) => c.json({ data: PROVIDERS.map((p) => ({ ...p })) }, 200));
  router.openapi(listModelsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { credential_id } = c.req.valid("query");
    return c.json(await listProviderModels(deps, c.get("principal").workspaceId, id, credential_id), 200);
  });
  return router;
}
