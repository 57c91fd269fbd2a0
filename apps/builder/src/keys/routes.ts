import {
  createRouter,
  errorResponses,
  idParam,
  listOf,
  listQuerySchema,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import { apiKeyCredential, type PrincipalCache } from "../auth/principal-cache.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { audited, requires } from "../workspaces/roles.ts";
import { toApiKeyJson } from "./api-key-json.ts";
import { apiKeySchema, createApiKeyBody, createdApiKeySchema } from "./contract.ts";
import { createApiKey } from "./create-api-key.ts";
import { KeyErrors } from "./errors.ts";
import { listApiKeys } from "./list-api-keys.ts";
import { revokeApiKey } from "./revoke-api-key.ts";

const createKeyRoute = createRoute({
  ...audited("api_key.created"),
  method: "post",
  path: "/",
  tags: ["api keys"],
  summary: "Create an API key (the key is shown once)",
  ...requires("admin"),
  request: { body: { required: true, content: { "application/json": { schema: createApiKeyBody } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: createdApiKeySchema } } },
    ...errorResponses(400, 401, 403, 422),
  },
});

const listKeysRoute = resourceRoutes({ tag: "api keys", schema: apiKeySchema }).list({
  summary: "List the workspace's API keys (never the keys themselves)",
  description: "A page of keys",
  query: listQuerySchema,
  page: listOf(apiKeySchema),
});

const deleteKeyRoute = createRoute({
  ...audited("api_key.revoked"),
  method: "delete",
  path: "/{id}",
  tags: ["api keys"],
  summary: "Revoke an API key",
  ...requires("admin"),
  request: { params: idParam },
  responses: { 204: { description: "Revoked" }, ...errorResponses(401, 404) },
});

export function apiKeyRoutes(deps: Deps, principals: PrincipalCache) {
  const router = createRouter<AppEnv>();
  router.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid("json");
    const { row, key } = await createApiKey(deps, c.get("principal"), {
      name: body.name,
      expiresInDays: body.expires_in_days,
      role: body.role,
    });
    return c.json({ ...toApiKeyJson(row), key }, 201);
  });
  router.openapi(listKeysRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listApiKeys(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toApiKeyJson), 200);
  });
  router.openapi(deleteKeyRoute, async (c) => {
    const keyHash = await revokeApiKey(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!keyHash) throw KeyErrors.API_KEY_NOT_FOUND();
    principals.delete(apiKeyCredential(keyHash));
    return c.body(null, 204);
  });
  return router;
}
