import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../../workspaces/schema.ts";
import { workflows } from "../schema.ts";

export type ScheduleOverlap = "skip" | "queue" | "allow";
export type ScheduleCatchUp = "none" | "latest" | "all";

export const workflowSchedules = pgTable(
  "workflow_schedules",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    // A schedule of a deleted workflow goes with it.
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    cron: text("cron").notNull(),
    timezone: text("timezone").notNull(),
    inputs: jsonb("inputs").$type<Record<string, unknown>>().notNull(),
    overlap: text("overlap").$type<ScheduleOverlap>().notNull(),
    catchUp: text("catch_up").$type<ScheduleCatchUp>().notNull(),
    isEnabled: boolean("is_enabled").notNull(),
    /**
     * The next tick not yet claimed; null while paused or when the cron has no future time. Claiming
     * a tick moves it forward in the transaction that records the tick's run: the exactly-once point.
     */
    nextFireAt: timestamp("next_fire_at", { withTimezone: true }),
    /** Ticks claimed while the previous run was going (overlap "queue"), oldest first, at most 100. */
    queuedTicks: jsonb("queued_ticks").$type<string[]>().notNull().default([]),
    /** Ticks dropped: by overlap "skip", by a catch-up policy, or past the queue's bound. */
    skippedTicks: integer("skipped_ticks").notNull().default(0),
    lastSkippedFor: timestamp("last_skipped_for", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("workflow_schedules_workflow_idx").on(table.workflowId, table.id),
    // The scheduler's claim: enabled schedules by their next tick (paused ones have none).
    index("workflow_schedules_due_idx").on(table.nextFireAt).where(sql`${table.nextFireAt} is not null`),
    index("workflow_schedules_queued_idx").on(table.id).where(sql`${table.queuedTicks} <> '[]'::jsonb`),
  ],
);

export type ScheduleRow = typeof workflowSchedules.$inferSelect;
