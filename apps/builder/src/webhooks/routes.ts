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
import {
  deleteEndpoint,
  findDelivery,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  replayFailedDeliveries,
  rotateEndpointSecret,
} from "@app/webhooks";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { eventScope } from "../events/event-types.ts";
import { audited, requires } from "../workspaces/roles.ts";
import {
  createWebhookBody,
  deliveryParams,
  deliverySchema,
  listDeliveriesQuery,
  replayFailedBody,
  replayFailedResult,
  updateWebhookBody,
  webhookSchema,
} from "./contract.ts";
import { createWebhook } from "./create-webhook.ts";
import { WebhookErrors } from "./errors.ts";
import { updateWebhook } from "./update-webhook.ts";
import { toWebhookDeliveryJson, toWebhookJson } from "./webhook-json.ts";

const routes = resourceRoutes({ tag: "webhooks", schema: webhookSchema });

const createWebhookRoute = {
  ...routes.create({
    summary: "Register an endpoint for some event types; the answer shows its signing secret, once",
    description: "Registered",
    body: createWebhookBody,
    errors: [400, 401, 409, 413, 415, 422],
  }),
  ...requires("admin"),
  ...audited("webhook.created"),
};

const listWebhooksRoute = routes.list({
  summary: "List the workspace's endpoints, newest first (never their secrets)",
  description: "A page of endpoints",
  query: listQuerySchema,
  page: listOf(webhookSchema).openapi("WebhookList"),
});

const getWebhookRoute = routes.get({ summary: "Get an endpoint", description: "The endpoint" });

const updateWebhookRoute = {
  ...routes.update({
    summary: "Change url, events, description or disabled",
    description: "The endpoint",
    body: updateWebhookBody,
    errors: [400, 401, 404, 413, 415, 422],
  }),
  ...requires("admin"),
  ...audited("webhook.updated"),
};

const deleteWebhookRoute = {
  ...routes.delete({
    summary: "Delete an endpoint with its deliveries and attempt records (events stay)",
  }),
  ...requires("admin"),
  ...audited("webhook.deleted"),
};

const rotateSecretRoute = createRoute({
  ...audited("webhook.secret_rotated"),
  ...requires("admin"),
  method: "post",
  path: "/{id}/rotate-secret",
  tags: ["webhooks"],
  summary: "Issue a new signing secret; the old one keeps signing for 24 h (two v1= entries)",
  request: { params: idParam },
  responses: {
    200: { description: "The endpoint with its new secret", content: jsonContent(webhookSchema) },
    ...errorResponses(401, 404),
  },
});

const listDeliveriesRoute = createRoute({
  method: "get",
  path: "/{id}/deliveries",
  tags: ["webhooks"],
  summary: "List an endpoint's deliveries, newest first, by status or event",
  request: { params: idParam, query: listDeliveriesQuery },
  responses: {
    200: {
      description: "A page of deliveries",
      content: jsonContent(listOf(deliverySchema).openapi("WebhookDeliveryList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

const getDeliveryRoute = createRoute({
  method: "get",
  path: "/{id}/deliveries/{delivery_id}",
  tags: ["webhooks"],
  summary: "Get a delivery with its attempts: request headers, answer, error (kept 90 days)",
  request: { params: deliveryParams },
  responses: {
    200: { description: "The delivery", content: jsonContent(deliverySchema) },
    ...errorResponses(401, 404),
  },
});

const replayDeliveryRoute = createRoute({
  ...requires("admin"),
  method: "post",
  path: "/{id}/deliveries/{delivery_id}/replay",
  tags: ["webhooks"],
  summary: "Start a new attempt series for a delivered or failed delivery (same event id and body)",
  request: { params: deliveryParams },
  responses: {
    200: { description: "The delivery, due now", content: jsonContent(deliverySchema) },
    ...errorResponses(401, 404, 409),
  },
});

const replayFailedRoute = createRoute({
  ...requires("admin"),
  method: "post",
  path: "/{id}/deliveries/replay-failed",
  tags: ["webhooks"],
  summary: "Replay every failed (parked) delivery of the endpoint since a time",
  request: { params: idParam, body: { required: true, content: jsonContent(replayFailedBody) } },
  responses: {
    200: {
      description: "How many deliveries are due again",
      content: jsonContent(replayFailedResult),
    },
    ...errorResponses(400, 401, 404, 415, 422),
  },
});

/** `/api/webhooks`: the workspace's endpoints for the builder's own events, their deliveries and replays. */
export function webhookRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  const scopeOf = (workspaceId: string, id: string) => ({ ...eventScope(workspaceId), id });

  router.openapi(createWebhookRoute, async (c) => {
    const { row, secret } = await createWebhook(deps, c.get("principal").workspaceId, c.req.valid("json"));
    return c.json(toWebhookJson(row, { secret }), 201);
  });
  router.openapi(listWebhooksRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listEndpoints(deps.db, {
      ...eventScope(c.get("principal").workspaceId),
      limit: query.limit,
      startingAfter: query.cursor,
    });
    return c.json(
      toPage(rows, query.limit, (row) => toWebhookJson(row)),
      200,
    );
  });
  router.openapi(getWebhookRoute, async (c) => {
    const row = await findEndpoint(deps.db, scopeOf(c.get("principal").workspaceId, c.req.valid("param").id));
    if (!row) throw WebhookErrors.WEBHOOK_NOT_FOUND();
    return c.json(toWebhookJson(row), 200);
  });
  router.openapi(updateWebhookRoute, async (c) => {
    const row = await updateWebhook(
      deps,
      c.get("principal").workspaceId,
      c.req.valid("param").id,
      c.req.valid("json"),
    );
    return c.json(toWebhookJson(row), 200);
  });
  router.openapi(deleteWebhookRoute, async (c) => {
    const isDeleted = await deleteEndpoint(
      deps.db,
      scopeOf(c.get("principal").workspaceId, c.req.valid("param").id),
    );
    if (!isDeleted) throw WebhookErrors.WEBHOOK_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(rotateSecretRoute, async (c) => {
    const rotated = await rotateEndpointSecret(
      deps,
      scopeOf(c.get("principal").workspaceId, c.req.valid("param").id),
    );
    if (!rotated) throw WebhookErrors.WEBHOOK_NOT_FOUND();
    return c.json(toWebhookJson(rotated.row, { secret: rotated.secret }), 200);
  });

  router.openapi(listDeliveriesRoute, async (c) => {
    const scope = scopeOf(c.get("principal").workspaceId, c.req.valid("param").id);
    const query = c.req.valid("query");
    if (!(await findEndpoint(deps.db, scope))) throw WebhookErrors.WEBHOOK_NOT_FOUND();
    const rows = await listDeliveries(deps.db, {
      ownerId: scope.ownerId,
      environment: scope.environment,
      endpointId: scope.id,
      limit: query.limit,
      startingAfter: query.cursor,
      status: query.status,
      eventId: query.event_id,
    });
    return c.json(
      toPage(rows, query.limit, (row) => toWebhookDeliveryJson(row)),
      200,
    );
  });
  router.openapi(getDeliveryRoute, async (c) => {
    const params = c.req.valid("param");
    const found = await findDelivery(deps.db, {
      ...scopeOf(c.get("principal").workspaceId, params.delivery_id),
      endpointId: params.id,
    });
    if (!found) throw WebhookErrors.WEBHOOK_DELIVERY_NOT_FOUND();
    return c.json(toWebhookDeliveryJson(found.delivery, found.attempts), 200);
  });
  router.openapi(replayDeliveryRoute, async (c) => {
    const params = c.req.valid("param");
    const result = await replayDelivery(deps, {
      ...scopeOf(c.get("principal").workspaceId, params.delivery_id),
      endpointId: params.id,
    });
    if (result.kind === "not_found") throw WebhookErrors.WEBHOOK_DELIVERY_NOT_FOUND();
    if (result.kind === "scheduled") throw WebhookErrors.DELIVERY_ALREADY_SCHEDULED();
    deps.deliveries?.wake();
    return c.json(toWebhookDeliveryJson(result.delivery), 200);
  });
  router.openapi(replayFailedRoute, async (c) => {
    const scope = scopeOf(c.get("principal").workspaceId, c.req.valid("param").id);
    if (!(await findEndpoint(deps.db, scope))) throw WebhookErrors.WEBHOOK_NOT_FOUND();
    const replayed = await replayFailedDeliveries(deps, {
      ownerId: scope.ownerId,
      environment: scope.environment,
      endpointId: scope.id,
      since: new Date(c.req.valid("json").since),
    });
    if (replayed > 0) deps.deliveries?.wake();
    return c.json({ replayed }, 200);
  });
  return router;
}
