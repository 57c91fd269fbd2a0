CREATE TABLE "dataset_rows" (
	"dataset_id" text NOT NULL,
	"position" integer NOT NULL,
	"input" text,
	"inputs" jsonb,
	"expected" text,
	CONSTRAINT "dataset_rows_dataset_id_position_pk" PRIMARY KEY("dataset_id","position")
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"row_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "evaluation_results" (
	"evaluation_id" text NOT NULL,
	"position" integer NOT NULL,
	"workspace_id" text NOT NULL,
	"input" text,
	"inputs" jsonb,
	"expected" text,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"output" text,
	"error" text,
	"scores" jsonb,
	"score" real,
	"latency_ms" integer,
	"credits" integer,
	"input_tokens" integer,
	"output_tokens" integer,
	"finished_at" timestamp with time zone,
	CONSTRAINT "evaluation_results_evaluation_id_position_pk" PRIMARY KEY("evaluation_id","position")
);
--> statement-breakpoint
CREATE TABLE "evaluations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_id" text NOT NULL,
	"version_selector" text NOT NULL,
	"version" integer,
	"dataset_id" text NOT NULL,
	"evaluators" jsonb NOT NULL,
	"status" text NOT NULL,
	"rows_total" integer NOT NULL,
	"reason" text DEFAULT 'api' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_versions" ADD COLUMN "gate_result" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "evaluation_gate" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD COLUMN "gate_result" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "evaluation_gate" jsonb;--> statement-breakpoint
ALTER TABLE "dataset_rows" ADD CONSTRAINT "dataset_rows_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evaluation_results" ADD CONSTRAINT "evaluation_results_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "datasets_workspace_idx" ON "datasets" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "evaluation_results_open_idx" ON "evaluation_results" USING btree ("status","lease_until") WHERE "evaluation_results"."status" in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "evaluations_workspace_idx" ON "evaluations" USING btree ("workspace_id","id");