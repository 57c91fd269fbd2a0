CREATE TABLE "annotations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"question" text NOT NULL,
	"answer" text NOT NULL,
	"embedding" real[],
	"embedding_model" text,
	"message_id" text,
	"hit_count" integer DEFAULT 0 NOT NULL,
	"last_hit_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "annotation_reply" jsonb;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "source" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "annotation_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "annotation_similarity" double precision;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "latency_ms" integer;--> statement-breakpoint
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "annotations" ADD CONSTRAINT "annotations_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "annotations_agent_idx" ON "annotations" USING btree ("agent_id","id");--> statement-breakpoint
CREATE INDEX "conversations_workspace_idx" ON "conversations" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "messages_workspace_idx" ON "messages" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "workflow_runs_workspace_idx" ON "workflow_runs" USING btree ("workspace_id","id");--> statement-breakpoint
-- Rows from before the source was recorded: an app's conversations are the app's, answers the model's.
UPDATE "conversations" SET "source" = 'app' WHERE "app_id" IS NOT NULL;--> statement-breakpoint
UPDATE "messages" SET "source" = 'model' WHERE "role" = 'assistant';
