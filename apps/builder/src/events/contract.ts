import { atMostOneCursor, listQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";
import { BUILDER_EVENT_TYPES } from "./event-types.ts";

const eventCursor = (name: string, description: string) =>
  z
    .string()
    .regex(/^evt_[0-9a-z]{26}$/, "must be an event id (evt_…)")
    .optional()
    .openapi({ param: { name, in: "query", description } });

export const listEventsQuery = atMostOneCursor(
  z.object({
    limit: listQuerySchema.shape.limit,
    type: z
      .enum(BUILDER_EVENT_TYPES)
      .optional()
      .openapi({ param: { name: "type", in: "query" } }),
    starting_after: eventCursor(
      "starting_after",
      "The events right after this one (newer), newest first; has_more when still newer ones exist",
    ),
    ending_before: eventCursor("ending_before", "The events right before this one (older), newest first"),
  }),
);

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: "evt_0000000000h3k0000000000042" }),
    object: z.literal("event"),
    type: z.enum(BUILDER_EVENT_TYPES),
    environment: z.literal("live"),
    created: z.number().int().openapi({ description: "Unix seconds" }),
    data: z.object({
      object: z
        .record(z.string(), z.unknown())
        .openapi({ description: "The workflow run, document, generation or credit grant at that moment" }),
    }),
  })
  .openapi("Event");

export const eventListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(eventSchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().openapi({
      description: "Pass it again as the cursor you used (ending_before when none) for the next page",
    }),
  })
  .openapi("EventList");
