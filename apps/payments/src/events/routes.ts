import { createRouter, errorResponses, idParam, jsonContent } from "@app/http";
import { eventListJson, findEventBody, listEvents, UnknownCursorError } from "@app/webhooks";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { listEnvelope } from "../shared/openapi.ts";
import { eventSchema, listEventsQuery } from "./contract.ts";
import { EventErrors } from "./errors.ts";

const listRouteDef = createRoute({
  method: "get",
  path: "/",
  tags: ["events"],
  summary: "List events newest first; starting_after gives the nearest newer ones (reconciliation)",
  request: { query: listEventsQuery },
  description: "`starting_after` and `ending_before` cannot be combined (422).",
  // OpenAPI cannot say that two query parameters exclude each other; this extension does, for
  // generated clients' authors and the fuzz test's request generator.
  "x-mutually-exclusive-parameters": [["starting_after", "ending_before"]],
  responses: {
    200: { description: "A page of events", content: jsonContent(listEnvelope(eventSchema)) },
    ...errorResponses(401, 404, 422),
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["events"],
  summary: "Get one event: the very bytes its webhooks carried",
  request: { params: idParam },
  responses: {
    200: { description: "The event", content: jsonContent(eventSchema) },
    ...errorResponses(401, 404),
  },
});

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

export function eventRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listRouteDef, async (c) => {
    const query = c.req.valid("query");
    const scope = c.get("merchant");
    try {
      const page = await listEvents(deps.db, {
        ownerId: scope.merchantId,
        environment: scope.environment,
        limit: query.limit,
        type: query.type,
        startingAfter: query.starting_after,
        endingBefore: query.ending_before,
      });
      // The stored bodies go out as they are, so the list carries the same bytes as the webhooks.
      return c.body(eventListJson(page), 200, JSON_HEADERS) as never;
    } catch (error) {
      if (error instanceof UnknownCursorError) throw EventErrors.CURSOR_NOT_FOUND({ param: error.param });
      throw error;
    }
  });
  router.openapi(getRouteDef, async (c) => {
    const scope = c.get("merchant");
    const body = await findEventBody(deps.db, {
      ownerId: scope.merchantId,
      environment: scope.environment,
      id: c.req.valid("param").id,
    });
    if (body === undefined) throw EventErrors.EVENT_NOT_FOUND();
    return c.body(body, 200, JSON_HEADERS) as never;
  });
  return router;
}
