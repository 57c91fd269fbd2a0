import { atMostOneCursor } from "@app/http";
import { z } from "@hono/zod-openapi";
import { limitQuery } from "../shared/openapi.ts";
import { EVENT_TYPES } from "./types.ts";

const eventCursor = (name: string) =>
  z
    .string()
    .regex(/^evt_[0-9a-z]{26}$/, "must be an event id (evt_…)")
    .optional()
    .openapi({ param: { name, in: "query" } });

export const listEventsQuery = atMostOneCursor(
  z.object({
    limit: limitQuery,
    type: z
      .enum(EVENT_TYPES)
      .optional()
      .openapi({ param: { name: "type", in: "query" } }),
    starting_after: eventCursor("starting_after"),
    ending_before: eventCursor("ending_before"),
  }),
);

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_0000000000h3k0000000000042" }),
    object: z.literal("event"),
    type: z.enum(EVENT_TYPES),
    environment: z.enum(["test", "live"]),
    created: z.number().int(),
    data: z.object({ object: z.record(z.string(), z.unknown()) }),
  })
  .openapi("Event");
