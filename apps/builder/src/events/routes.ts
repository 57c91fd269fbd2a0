import { createRouter, errorResponses, idParam, jsonContent } from "@app/http";
import { eventListJson, findEventBody, listEvents, UnknownCursorError } from "@app/webhooks";
import { createRoute } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { eventListSchema, eventSchema, listEventsQuery } from "./contract.ts";
import { EventErrors } from "./errors.ts";
import { eventScope } from "./event-types.ts";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

const listEventsRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["events"],
  summary: "List the workspace's events newest first; starting_after gives the nearest newer ones",
  request: { query: listEventsQuery },
  description: "`starting_after` and `ending_before` cannot be combined (422).",
  // OpenAPI cannot say that two query parameters exclude each other; this extension does, for
  // generated clients' authors and the fuzz test's request generator.
  "x-mutually-exclusive-parameters": [["starting_after", "ending_before"]],
  responses: {
    200: { description: "A page of events", content: jsonContent(eventListSchema) },
    ...errorResponses(401, 404, 422),
  },
});

const getEventRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["events"],
  summary: "Get one event: the very bytes its webhooks carried",
  request: {
    params: idParam,
  },
  responses: {
    200: { description: "The event", content: jsonContent(eventSchema) },
    ...errorResponses(401, 404),
  },
});

/** `/api/events`: the events the builder emitted for the caller's workspace, as the payment service lists its own. */
export function eventRoutes(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(listEventsRoute, async (c) => {
    const query = c.req.valid("query");
    try {
      const page = await listEvents(deps.db, {
        ...eventScope(c.get("principal").workspaceId),
        limit: query.limit,
        type: query.type,
        startingAfter: query.starting_after,
        endingBefore: query.ending_before,
      });
      // The stored bodies go out as they are, so the list carries the same bytes as the webhooks.
      return c.body(eventListJson(page, { withNextCursor: true }), 200, JSON_HEADERS) as never;
    } catch (error) {
      if (error instanceof UnknownCursorError) throw EventErrors.CURSOR_NOT_FOUND({ param: error.param });
      throw error;
    }
  });
  router.openapi(getEventRoute, async (c) => {
    const body = await findEventBody(deps.db, {
      ...eventScope(c.get("principal").workspaceId),
      id: c.req.valid("param").id,
    });
    if (body === undefined) throw EventErrors.EVENT_NOT_FOUND();
    return c.body(body, 200, JSON_HEADERS) as never;
  });
  return router;
}
