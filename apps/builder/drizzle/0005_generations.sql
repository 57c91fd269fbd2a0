CREATE TABLE "stored_files" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"generation_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "generations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"model" text NOT NULL,
	"status" text NOT NULL,
	"input" jsonb NOT NULL,
	"outputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"metrics" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"prediction_id" text,
	"webhook_url" text,
	"next_poll_at" timestamp with time zone NOT NULL,
	"poll_count" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "replicate_webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"generation_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stored_files" ADD CONSTRAINT "stored_files_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stored_files_workspace_idx" ON "stored_files" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "stored_files_generation_idx" ON "stored_files" USING btree ("generation_id");--> statement-breakpoint
CREATE INDEX "generations_workspace_idx" ON "generations" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "generations_prediction_idx" ON "generations" USING btree ("prediction_id");--> statement-breakpoint
CREATE INDEX "generations_poll_idx" ON "generations" USING btree ("status","next_poll_at");