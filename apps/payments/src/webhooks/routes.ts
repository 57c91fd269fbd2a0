import { createRouter, errorResponses, idParam, jsonContent, resourceRoutes } from "@app/http";
import {
  createEndpoint,
  deleteEndpoint,
  findDelivery,
  findEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateEndpointSecret,
  toDeliveryJson,
  toEndpointJson,
  updateEndpoint,
} from "@app/webhooks";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { type IdempotencyRecoverer, recoveryPoint } from "../idempotency/idempotency.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { listEnvelope, pageOf } from "../shared/openapi.ts";
import { checkEndpointUrl } from "./check-endpoint-url.ts";
import {
  createEndpointBody,
  deletedEndpointSchema,
  deliverySchema,
  endpointSchema,
  listDeliveriesQuery,
  listEndpointsQuery,
  updateEndpointBody,
} from "./contract.ts";
import { WebhookErrors } from "./errors.ts";

const endpointRoutes = resourceRoutes({ tag: "webhook endpoints", schema: endpointSchema });

const endpointRoutesDefs = {
  create: endpointRoutes.create({
    summary: "Register an endpoint; the answer shows its signing secret, once",
    description: "Created",
    body: createEndpointBody,
    errors: [400, 401, 413, 422],
  }),
  list: endpointRoutes.list({
    summary: "List endpoints, newest first",
    description: "A page",
    query: listEndpointsQuery,
    page: listEnvelope(endpointSchema),
  }),
  get: endpointRoutes.get({ summary: "Get an endpoint", description: "The endpoint" }),
  update: endpointRoutes.update({
    summary: "Change url, enabled_events, description or disabled",
    description: "The endpoint",
    body: updateEndpointBody,
    errors: [400, 401, 404, 422],
  }),
  remove: createRoute({
    method: "delete",
    path: "/{id}",
    tags: ["webhook endpoints"],
    summary: "Delete an endpoint with its deliveries (events stay)",
    request: { params: idParam },
    responses: {
      200: {
        description: "Deleted",
        content: jsonContent(deletedEndpointSchema),
      },
      ...errorResponses(401, 404),
    },
  }),
  rotate: createRoute({
    method: "post",
    path: "/{id}/rotate_secret",
    tags: ["webhook endpoints"],
    summary: "Issue a new secret; the old one keeps signing for 24 h (two v1= entries)",
    request: { params: idParam },
    responses: {
      200: { description: "The endpoint with its new secret", content: jsonContent(endpointSchema) },
      ...errorResponses(401, 404),
    },
  }),
};

function scopeOf(merchant: MerchantScope) {
  return { ownerId: merchant.merchantId, environment: merchant.environment };
}

/**
 * Answers a retry whose first request created the endpoint and then died: the endpoint with its
 * secret, as the first answer (and its replays) showed it.
 *
 * @example idempotency(deps, { "/v1/webhook_endpoints": recoverWebhookEndpoint(deps) });
 */
export function recoverWebhookEndpoint(deps: Deps): IdempotencyRecoverer {
  return async (scope, id) => {
    const row = await findEndpoint(deps.db, { ...scopeOf(scope), id });
    return row && { status: 201, body: toEndpointJson(row, { secret: row.secret }) };
  };
}

export function webhookEndpointRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(endpointRoutesDefs.create, async (c) => {
    const merchant = c.get("merchant");
    const input = c.req.valid("json");
    const url = await checkEndpointUrl(deps, merchant, input.url);
    const claim = c.get("idempotency");
    // With its recovery point, and so fenced by the request deadline (the URL check above may be slow).
    const { row, secret } = await deps.db.transaction(async (tx) => {
      const created = await createEndpoint(
        { db: tx, clock: deps.clock },
        {
          ...scopeOf(merchant),
          url,
          enabledEvents: input.enabled_events,
          ...(input.description === undefined ? {} : { description: input.description }),
        },
      );
      if (claim) await recoveryPoint(tx, deps.clock, claim, created.row.id);
      return created;
    });
    return c.json(toEndpointJson(row, { secret }), 201);
  });
  router.openapi(endpointRoutesDefs.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listEndpoints(deps.db, {
      ...scopeOf(c.get("merchant")),
      limit: query.limit,
      startingAfter: query.starting_after,
    });
    return c.json(
      pageOf(rows, query.limit, (row) => toEndpointJson(row)),
      200,
    );
  });
  router.openapi(endpointRoutesDefs.get, async (c) => {
    const row = await findEndpoint(deps.db, { ...scopeOf(c.get("merchant")), id: c.req.valid("param").id });
    if (!row) throw WebhookErrors.WEBHOOK_ENDPOINT_NOT_FOUND();
    return c.json(toEndpointJson(row), 200);
  });
  router.openapi(endpointRoutesDefs.update, async (c) => {
    const merchant = c.get("merchant");
    const input = c.req.valid("json");
    const url = input.url === undefined ? undefined : await checkEndpointUrl(deps, merchant, input.url);
    const row = await updateEndpoint(
      deps,
      { ...scopeOf(merchant), id: c.req.valid("param").id },
      {
        ...(url === undefined ? {} : { url }),
        ...(input.enabled_events === undefined ? {} : { enabledEvents: input.enabled_events }),
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.disabled === undefined ? {} : { isDisabled: input.disabled }),
      },
    );
    if (!row) throw WebhookErrors.WEBHOOK_ENDPOINT_NOT_FOUND();
    return c.json(toEndpointJson(row), 200);
  });
  router.openapi(endpointRoutesDefs.remove, async (c) => {
    const id = c.req.valid("param").id;
    const isDeleted = await deleteEndpoint(deps.db, { ...scopeOf(c.get("merchant")), id });
    if (!isDeleted) throw WebhookErrors.WEBHOOK_ENDPOINT_NOT_FOUND();
    return c.json({ id, object: "webhook_endpoint" as const, deleted: true as const }, 200);
  });
  router.openapi(endpointRoutesDefs.rotate, async (c) => {
    const rotated = await rotateEndpointSecret(deps, {
      ...scopeOf(c.get("merchant")),
      id: c.req.valid("param").id,
    });
    if (!rotated) throw WebhookErrors.WEBHOOK_ENDPOINT_NOT_FOUND();
    return c.json(toEndpointJson(rotated.row, { secret: rotated.secret }), 200);
  });
  return router;
}

const deliveryRouteDefs = {
  list: createRoute({
    method: "get",
    path: "/",
    tags: ["webhook deliveries"],
    summary: "List deliveries, newest first, by endpoint, event or status",
    request: {
      query: listDeliveriesQuery,
    },
    responses: {
      200: { description: "A page", content: jsonContent(listEnvelope(deliverySchema)) },
      ...errorResponses(401, 422),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/{id}",
    tags: ["webhook deliveries"],
    summary: "Get a delivery with its attempts (kept 90 days)",
    request: { params: idParam },
    responses: {
      200: { description: "The delivery", content: jsonContent(deliverySchema) },
      ...errorResponses(401, 404),
    },
  }),
  replay: createRoute({
    method: "post",
    path: "/{id}/replay",
    tags: ["webhook deliveries"],
    summary: "Start a new attempt series for a delivered or failed delivery (same event id and body)",
    request: { params: idParam },
    responses: {
      200: { description: "The delivery, due now", content: jsonContent(deliverySchema) },
      ...errorResponses(401, 404, 409),
    },
  }),
};

export function webhookDeliveryRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(deliveryRouteDefs.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listDeliveries(deps.db, {
      ...scopeOf(c.get("merchant")),
      limit: query.limit,
      startingAfter: query.starting_after,
      endpointId: query.endpoint,
      eventId: query.event,
      status: query.status,
    });
    return c.json(
      pageOf(rows, query.limit, (row) => toDeliveryJson(row)),
      200,
    );
  });
  router.openapi(deliveryRouteDefs.get, async (c) => {
    const found = await findDelivery(deps.db, { ...scopeOf(c.get("merchant")), id: c.req.valid("param").id });
    if (!found) throw WebhookErrors.WEBHOOK_DELIVERY_NOT_FOUND();
    return c.json(toDeliveryJson(found.delivery, found.attempts), 200);
  });
  router.openapi(deliveryRouteDefs.replay, async (c) => {
    const result = await replayDelivery(deps, { ...scopeOf(c.get("merchant")), id: c.req.valid("param").id });
    if (result.kind === "not_found") throw WebhookErrors.WEBHOOK_DELIVERY_NOT_FOUND();
    if (result.kind === "scheduled") throw WebhookErrors.DELIVERY_ALREADY_SCHEDULED();
    deps.deliveries.wake();
    return c.json(toDeliveryJson(result.delivery), 200);
  });
  return router;
}
