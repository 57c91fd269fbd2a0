import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  pathId,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute, z } from "@hono/zod-openapi";
import { listAppConversations } from "../agents/app-conversations.ts";
import { conversationSchema } from "../agents/chat-contract.ts";
import { toConversationJson } from "../agents/conversation-json.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { etagOf, expectedRevisions, ifMatchHeaders, refusedWrite } from "../versions/revisions.ts";
import { toAppJson, toAppKeyJson } from "./app-json.ts";
import { createAppKey, listAppKeys, revokeAppKey } from "./app-keys.ts";
import {
  appConversationsQuery,
  appKeySchema,
  appSchema,
  appWithSecretSchema,
  createAppBody,
  createAppKeyBody,
  createdAppKeySchema,
  listAppsQuery,
  updateAppBody,
} from "./contract.ts";
import { createApp } from "./create-app.ts";
import { findEndUserByAnyId, findEndUsers } from "./end-users.ts";
import { AppErrors } from "./errors.ts";
import { deleteApp, findApp, listApps, rotateEndUserSecret, updateApp } from "./manage-apps.ts";

const resource = resourceRoutes({ tag: "apps", schema: appSchema });

const appConversationSchema = conversationSchema
  .extend({
    end_user: z
      .object({
        id: z.string(),
        kind: z.enum(["anonymous", "customer"]),
        external_id: z.string().openapi({ description: "Your own user id (customer), or our anonymous id" }),
        name: z.string().nullable(),
      })
      .nullable(),
  })
  .openapi("AppConversation");

const routes = {
  list: resource.list({
    summary: "List the workspace's apps, newest first; filter by agent_id or workflow_id",
    description: "A page of apps",
    query: listAppsQuery,
    page: listOf(appSchema).openapi("AppList"),
  }),
  create: createRoute({
    method: "post",
    path: "/",
    tags: ["apps"],
    summary: "Publish an agent or a workflow to its end users as an app",
    description:
      "The answer holds the end-user secret once: your server signs end users' tokens (HS256 JWTs) with it.",
    request: { body: { required: true, content: jsonContent(createAppBody) } },
    responses: {
      201: { description: "Created", content: jsonContent(appWithSecretSchema) },
      ...errorResponses(400, 401, 409, 413, 422),
    },
  }),
  get: resource.get({ summary: "Get an app", description: "The app" }),
  update: resource.update({
    summary: "Change an app's settings",
    description: "The updated app",
    body: updateAppBody,
    errors: [400, 401, 404, 409, 412, 422],
    headers: ifMatchHeaders,
  }),
  remove: resource.delete({ summary: "Delete an app (its conversations and runs stay in the history)" }),
  rotateSecret: createRoute({
    method: "post",
    path: "/{id}/end-user-secret/rotate",
    tags: ["apps"],
    summary: "Replace the end-user secret (tokens signed with the old one stop working); shown once",
    request: { params: idParam },
    responses: {
      200: { description: "The app with its new secret", content: jsonContent(appWithSecretSchema) },
      ...errorResponses(401, 404),
    },
  }),
  createKey: createRoute({
    method: "post",
    path: "/{id}/keys",
    tags: ["apps"],
    summary: "Create a server-to-server key of this app (shown once); it reaches only this app's public API",
    request: { params: idParam, body: { required: true, content: jsonContent(createAppKeyBody) } },
    responses: {
      201: { description: "Created", content: jsonContent(createdAppKeySchema) },
      ...errorResponses(400, 401, 404, 422),
    },
  }),
  listKeys: createRoute({
    method: "get",
    path: "/{id}/keys",
    tags: ["apps"],
    summary: "The app's keys (never the keys themselves)",
    request: { params: idParam, query: listQuerySchema },
    responses: {
      200: {
        description: "A page of keys",
        content: jsonContent(listOf(appKeySchema).openapi("AppKeyList")),
      },
      ...errorResponses(401, 404, 422),
    },
  }),
  revokeKey: createRoute({
    method: "delete",
    path: "/{id}/keys/{key_id}",
    tags: ["apps"],
    summary: "Revoke an app key",
    request: { params: z.object({ id: pathId("id"), key_id: pathId("key_id") }) },
    responses: { 204: { description: "Revoked" }, ...errorResponses(401, 404) },
  }),
  conversations: createRoute({
    method: "get",
    path: "/{id}/conversations",
    tags: ["apps"],
    summary: "The app's conversations with their end users, newest first; filter by end user and rating",
    description: "Read a conversation's messages and ratings at GET /api/conversations/{id}/messages.",
    request: { params: idParam, query: appConversationsQuery },
    responses: {
      200: {
        description: "A page of conversations",
        content: jsonContent(listOf(appConversationSchema).openapi("AppConversationList")),
      },
      ...errorResponses(401, 404, 422),
    },
  }),
};

/**
 * `/api/apps`: the workspace's apps, their end-user secret, keys, and the conversations of their end users.
 *
 * @example app.route("/api/apps", appRoutes(deps));
 */
export function appRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  const urls = { publicUrl: deps.config.publicUrl };
  const ownApp = async (workspaceId: string, id: string) => {
    const app = await findApp(deps.db, workspaceId, id);
    if (!app) throw AppErrors.APP_NOT_FOUND();
    return app;
  };

  router.openapi(routes.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listApps(deps.db, c.get("principal").workspaceId, query);
    return c.json(
      toPage(rows, query.limit, (row) => toAppJson(row, urls)),
      200,
    );
  });
  router.openapi(routes.create, async (c) => {
    const { row, endUserSecret } = await createApp(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json({ ...toAppJson(row, urls), end_user_secret: endUserSecret }, 201);
  });
  router.openapi(routes.get, async (c) => {
    const app = await ownApp(c.get("principal").workspaceId, c.req.valid("param").id);
    c.header("ETag", etagOf(app));
    return c.json(toAppJson(app, urls), 200);
  });
  router.openapi(routes.update, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const { id } = c.req.valid("param");
    const expected = expectedRevisions(c.req.header("if-match"));
    const row = await updateApp(deps, workspaceId, id, c.req.valid("json"), expected);
    if (!row) throw await refusedWrite(() => findApp(deps.db, workspaceId, id), AppErrors.APP_NOT_FOUND);
    c.header("ETag", etagOf(row));
    return c.json(toAppJson(row, urls), 200);
  });
  router.openapi(routes.remove, async (c) => {
    const isDeleted = await deleteApp(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw AppErrors.APP_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(routes.rotateSecret, async (c) => {
    const rotated = await rotateEndUserSecret(deps, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!rotated) throw AppErrors.APP_NOT_FOUND();
    c.header("ETag", etagOf(rotated.row));
    return c.json({ ...toAppJson(rotated.row, urls), end_user_secret: rotated.endUserSecret }, 200);
  });
  router.openapi(routes.createKey, async (c) => {
    const app = await ownApp(c.get("principal").workspaceId, c.req.valid("param").id);
    const { row, key } = await createAppKey(deps, app, c.req.valid("json").name);
    return c.json({ ...toAppKeyJson(row), key }, 201);
  });
  router.openapi(routes.listKeys, async (c) => {
    const app = await ownApp(c.get("principal").workspaceId, c.req.valid("param").id);
    const query = c.req.valid("query");
    return c.json(toPage(await listAppKeys(deps.db, app.id, query), query.limit, toAppKeyJson), 200);
  });
  router.openapi(routes.revokeKey, async (c) => {
    const { id, key_id: keyId } = c.req.valid("param");
    const app = await ownApp(c.get("principal").workspaceId, id);
    if (!(await revokeAppKey(deps.db, app.id, keyId))) throw AppErrors.APP_KEY_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(routes.conversations, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const app = await ownApp(workspaceId, c.req.valid("param").id);
    const query = c.req.valid("query");
    const endUser = query.end_user ? await findEndUserByAnyId(deps.db, app.id, query.end_user) : undefined;
    if (query.end_user && !endUser) return c.json({ data: [], has_more: false, next_cursor: null }, 200);
    const rows = await listAppConversations(
      deps.db,
      workspaceId,
      { appId: app.id, endUserId: endUser?.id, rating: query.rating },
      query,
    );
    const endUsers = await findEndUsers(deps.db, app.id, [
      ...new Set(rows.map((row) => row.endUserId).filter((id): id is string => id !== null)),
    ]);
    return c.json(
      toPage(rows, query.limit, (row) => {
        const owner = row.endUserId ? endUsers.get(row.endUserId) : undefined;
        return {
          ...toConversationJson(row),
          end_user: owner
            ? { id: owner.id, kind: owner.kind, external_id: owner.externalId, name: owner.name }
            : null,
        };
      }),
      200,
    );
  });
  return router;
}
