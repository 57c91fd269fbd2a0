CREATE TABLE "workflow_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"inputs" jsonb NOT NULL,
	"overlap" text NOT NULL,
	"catch_up" text NOT NULL,
	"is_enabled" boolean NOT NULL,
	"next_fire_at" timestamp with time zone,
	"queued_ticks" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"skipped_ticks" integer DEFAULT 0 NOT NULL,
	"last_skipped_for" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "schedule_id" text;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "scheduled_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_schedules" ADD CONSTRAINT "workflow_schedules_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_schedules" ADD CONSTRAINT "workflow_schedules_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workflow_schedules_workflow_idx" ON "workflow_schedules" USING btree ("workflow_id","id");--> statement-breakpoint
CREATE INDEX "workflow_schedules_due_idx" ON "workflow_schedules" USING btree ("next_fire_at") WHERE "workflow_schedules"."next_fire_at" is not null;--> statement-breakpoint
CREATE INDEX "workflow_schedules_queued_idx" ON "workflow_schedules" USING btree ("id") WHERE "workflow_schedules"."queued_ticks" <> '[]'::jsonb;--> statement-breakpoint
CREATE INDEX "workflow_runs_schedule_idx" ON "workflow_runs" USING btree ("schedule_id","scheduled_for") WHERE "workflow_runs"."schedule_id" is not null;--> statement-breakpoint
CREATE INDEX "workflow_runs_schedule_running_idx" ON "workflow_runs" USING btree ("schedule_id") WHERE "workflow_runs"."schedule_id" is not null and "workflow_runs"."status" = 'running';