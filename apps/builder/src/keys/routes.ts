import { createRouter, errorResponses, idParam, listOf, listQuerySchema, toPage } from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyCredential, type PrincipalCache } from "../auth/principal-cache.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { createApiKey } from "./create-api-key.ts";
import { KeyErrors } from "./errors.ts";
import { listApiKeys } from "./list-api-keys.ts";
import { revokeApiKey } from "./revoke-api-key.ts";
import type { ApiKeyRow } from "./schema.ts";

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(3650).optional(),
  })
  .openapi("CreateApiKeyRequest");

const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the key, to tell keys apart" }),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("ApiKey");

const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().openapi({ description: "The whole key. Shown in this response only." }) })
  .openapi("CreatedApiKey");

function toJson(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}

const createKeyRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["api keys"],
  summary: "Create an API key (the key is shown once)",
  request: { body: { required: true, content: { "application/json": { schema: createApiKeyBody } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: createdApiKeySchema } } },
    ...errorResponses(400, 401, 422),
  },
});

const listKeysRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["api keys"],
  summary: "List the workspace's API keys (never the keys themselves)",
  request: { query: listQuerySchema },
  responses: {
    200: { description: "A page of keys", content: { "application/json": { schema: listOf(apiKeySchema) } } },
    ...errorResponses(401, 422),
  },
});

const deleteKeyRoute = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["api keys"],
  summary: "Revoke an API key",
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
    });
    return c.json({ ...toJson(row), key }, 201);
  });
  router.openapi(listKeysRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listApiKeys(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toJson), 200);
  });
  router.openapi(deleteKeyRoute, async (c) => {
    const keyHash = await revokeApiKey(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!keyHash) throw KeyErrors.API_KEY_NOT_FOUND();
    principals.delete(apiKeyCredential(keyHash));
    return c.body(null, 204);
  });
  return router;
}
