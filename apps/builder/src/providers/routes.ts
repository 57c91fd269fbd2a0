import { createRouter, errorResponses, idParam } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import { configuredProvider } from "../credentials/configured-provider.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { PROVIDERS } from "./catalogue.ts";
import { providerList, providerModelsQuery, providerModelsSchema } from "./contract.ts";
import { listProviderModels } from "./list-provider-models.ts";

const listProvidersRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["providers"],
  summary: "The AI providers agents can use, with their models and capabilities",
  responses: {
    200: {
      description: "Every provider",
      content: { "application/json": { schema: providerList } },
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
    params: idParam,
    query: providerModelsQuery,
  },
  responses: {
    200: { description: "The models", content: { "application/json": { schema: providerModelsSchema } } },
    ...errorResponses(401, 404, 422),
  },
});

export function providerRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listProvidersRoute, async (c) =>
    c.json(
      {
        data: PROVIDERS.map((p) => ({ ...p })),
        default_provider: await configuredProvider(deps, c.get("principal").workspaceId),
      },
      200,
    ),
  );
  router.openapi(listModelsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { credential_id } = c.req.valid("query");
    return c.json(await listProviderModels(deps, c.get("principal").workspaceId, id, credential_id), 200);
  });
  return router;
}
