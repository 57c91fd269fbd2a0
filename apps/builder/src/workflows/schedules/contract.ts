import { patchBody } from "@app/http";
import { z } from "@hono/zod-openapi";
import { canonicalTimeZone, cronProblem } from "./cron.ts";
import { MAX_CATCH_UP_TICKS, MISSED_AFTER_MS } from "./due-ticks.ts";

/** Schedules per workflow. */
export const MAX_SCHEDULES_PER_WORKFLOW = 100;
/** How many upcoming ticks a schedule's answer lists. */
export const NEXT_RUNS_SHOWN = 5;

const cronField = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .superRefine((value, context) => {
    const problem = cronProblem(value);
    if (problem) context.addIssue({ code: "custom", message: `is not a valid cron expression: ${problem}` });
  })
  .openapi({
    description:
      "Five fields (minute hour day-of-month month day-of-week), or six with seconds first; `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly` too. Read in `timezone`, with Vixie cron's DST rules (docs/workflows.md, Schedules).",
    example: "0 9 * * 1-5",
  });

const timezoneField = z
  .string()
  .min(1)
  .max(64)
  .refine((value) => canonicalTimeZone(value) !== undefined, {
    message: "is not an IANA time zone (such as Europe/Berlin or UTC)",
  })
  .openapi({ description: "An IANA time zone the cron is read in", example: "Europe/Berlin" });

const inputsField = z.record(z.string(), z.unknown()).openapi({
  description: "The run's inputs, checked against the workflow's Start node when saved",
});

const overlapField = z.enum(["skip", "queue", "allow"]).openapi({
  description:
    "A tick while this schedule's previous run is still going: `skip` it (counted in `skipped_ticks`), `queue` it (it starts when the run ends; at most 100 wait), or `allow` it to run alongside",
});

const catchUpField = z.enum(["none", "latest", "all"]).openapi({
  description: `Ticks missed while no builder ran (reached more than ${MISSED_AFTER_MS / 1000} s late): \`none\` drops them, \`latest\` fires once for the most recent, \`all\` fires each (the last ${MAX_CATCH_UP_TICKS})`,
});

// Strict: a misspelt field (`catchup`) must not be silently ignored.
export const createScheduleBody = z
  .object({
    cron: cronField,
    timezone: timezoneField.default("UTC"),
    inputs: inputsField.default({}),
    overlap: overlapField.default("skip"),
    catch_up: catchUpField.default("latest"),
    enabled: z.boolean().default(true),
  })
  .strict()
  .openapi("CreateScheduleRequest");

export const updateScheduleBody = patchBody(
  z
    .object({
      cron: cronField,
      timezone: timezoneField,
      inputs: inputsField,
      overlap: overlapField,
      catch_up: catchUpField,
      enabled: z.boolean().openapi({ description: "false pauses the schedule; true resumes from now on" }),
    })
    .partial()
    .strict(),
).openapi("UpdateScheduleRequest");

export type CreateScheduleInput = z.infer<typeof createScheduleBody>;
export type UpdateScheduleInput = z.infer<typeof updateScheduleBody>;

export const scheduleSchema = z
  .object({
    id: z.string().openapi({ example: "sch_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    workflow_id: z.string(),
    cron: z.string(),
    timezone: z.string(),
    inputs: z.record(z.string(), z.unknown()),
    overlap: z.enum(["skip", "queue", "allow"]),
    catch_up: z.enum(["none", "latest", "all"]),
    enabled: z.boolean(),
    next_runs: z.array(z.string()).openapi({
      description: `The next ${NEXT_RUNS_SHOWN} ticks, ISO 8601 with the zone's offset then; empty while paused`,
      example: ["2026-03-30T09:00:00+02:00"],
    }),
    queued_ticks: z
      .number()
      .int()
      .openapi({ description: "Ticks waiting for the running run (overlap queue)" }),
    skipped_ticks: z.number().int().openapi({
      description: "Ticks skipped because the previous run was still going, or the queue was full",
    }),
    last_skipped_for: z.string().nullable(),
    last_run: z
      .object({
        id: z.string(),
        status: z.enum(["running", "waiting", "succeeded", "failed", "cancelled"]),
        scheduled_for: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "The schedule's latest run (GET /api/runs/{id} has the rest)" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Schedule");
