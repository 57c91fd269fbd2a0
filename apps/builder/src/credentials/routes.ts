import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { audited, requires } from "../workspaces/roles.ts";
import { checkCredential } from "./check-credential.ts";
import { createCredentialBody, credentialCheckSchema, credentialSchema } from "./contract.ts";
import { createCredential } from "./create-credential.ts";
import { toCredentialJson } from "./credential-json.ts";
import { deleteCredential } from "./delete-credential.ts";
import { CredentialErrors } from "./errors.ts";
import { listCredentials } from "./list-credentials.ts";

const routes = resourceRoutes({ tag: "credentials", schema: credentialSchema });

const createCredentialRoute = {
  ...routes.create({
    summary: "Store a provider API key for the workspace (encrypted; shown only as a hint)",
    description: "Stored",
    body: createCredentialBody,
    errors: [400, 401, 413, 422],
  }),
  ...requires("admin"),
  ...audited("credential.created"),
};

const listCredentialsRoute = routes.list({
  summary: "List the workspace's provider credentials, newest first",
  description: "A page of credentials",
  query: listQuerySchema,
  page: listOf(credentialSchema).openapi("CredentialList"),
});

const deleteCredentialRoute = {
  ...routes.delete({ summary: "Delete a credential" }),
  ...requires("admin"),
  ...audited("credential.deleted"),
};

const checkCredentialRoute = createRoute({
  ...requires("admin"),
  method: "post",
  path: "/{id}/test",
  tags: ["credentials"],
  summary: "Check a key against its provider with a call that spends no tokens (the model listing)",
  request: { params: idParam },
  responses: {
    200: { description: "The provider accepted the key", content: jsonContent(credentialCheckSchema) },
    ...errorResponses(401, 404, 422, 424, 429, 502, 504),
  },
});

export function credentialRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(createCredentialRoute, async (c) => {
    const row = await createCredential(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json(toCredentialJson(row), 201);
  });
  router.openapi(listCredentialsRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listCredentials(deps.db, c.get("principal").workspaceId, query);
    return c.json(toPage(rows, query.limit, toCredentialJson), 200);
  });
  router.openapi(deleteCredentialRoute, async (c) => {
    const isDeleted = await deleteCredential(
      deps.db,
      c.get("principal").workspaceId,
      c.req.valid("param").id,
    );
    if (!isDeleted) throw CredentialErrors.CREDENTIAL_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(checkCredentialRoute, async (c) => {
    const result = await checkCredential(deps, c.get("principal").workspaceId, c.req.valid("param").id);
    return c.json(result, 200);
  });
  return router;
}
