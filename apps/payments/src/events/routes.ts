import { createRouter, errorResponses, idParam, jsonContent } from "@app/http";
import { eventListJson, findEventBody, listEvents, UnknownCursorError } from "@app/webhooks";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { limitQuery, listEnvelope } from "../shared/openapi.ts";
import { EventErrors } from "./errors.ts";
import { EVENT_TYPES } from "./types.ts";

const eventCursor = (name: string) =>
  z
    .string()
    .regex(/^evt_[0-9a-z]{26}$/, "must be an event id (evt_…)")
    .optional()
    .openapi({ param: { name, in: "query" } });

export const listEventsQuery = z
  .object({
    limit: limitQuery,
    type: z
      .enum(EVENT_TYPES)
      .optional()
      .openapi({ param: { name: "type", in: "query" } }),
    starting_after: eventCursor("starting_after"),
    ending_before: eventCursor("ending_before"),
  })
  .refine((query) => query.starting_after === undefined || query.ending_before === undefined, {
    message: "cannot be combined with starting_after",
    path: ["ending_before"],
  });

const eventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_0000000000h3k0000000000042" }),
    object: z.literal("event"),
    type: z.enum(EVENT_TYPES),
    environment: z.enum(["test", "live"]),
    created: z.number().int(),
    data: z.object({ object: z.record(z.string(), z.unknown()) }),
  })
  .openapi("Event");

const listRouteDef = createRoute({
  method: "get",
  path: "/",
  tags: ["events"],
  summary: "List events newest first; starting_after gives the nearest newer ones (reconciliation)",
  request: { query: listEventsQuery },
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
