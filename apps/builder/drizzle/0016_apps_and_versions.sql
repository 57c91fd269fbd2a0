CREATE TABLE "agent_versions" (
	"agent_id" text NOT NULL,
	"version" integer NOT NULL,
	"workspace_id" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"snapshot" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "agent_versions_agent_id_version_pk" PRIMARY KEY("agent_id","version")
);
--> statement-breakpoint
CREATE TABLE "message_feedback" (
	"message_id" text NOT NULL,
	"source" text NOT NULL,
	"workspace_id" text NOT NULL,
	"rating" text NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "message_feedback_message_id_source_pk" PRIMARY KEY("message_id","source")
);
--> statement-breakpoint
CREATE TABLE "app_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"agent_id" text,
	"workflow_id" text,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"theme" jsonb NOT NULL,
	"starter_prompts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allowed_origins" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rate_limit" jsonb,
	"end_user_credit_limit" integer,
	"end_user_secret_sealed" text NOT NULL,
	"end_user_secret_hint" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "end_user_usage" (
	"end_user_id" text NOT NULL,
	"day" text NOT NULL,
	"app_id" text NOT NULL,
	"credits" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "end_users" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"external_id" text NOT NULL,
	"name" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_versions" (
	"workflow_id" text NOT NULL,
	"version" integer NOT NULL,
	"workspace_id" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"graph" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "workflow_versions_workflow_id_version_pk" PRIMARY KEY("workflow_id","version")
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "published_version" integer;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "app_id" text;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "end_user_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "version" integer;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "app_id" text;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "end_user_id" text;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "published_version" integer;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agent_versions" ADD CONSTRAINT "agent_versions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_feedback" ADD CONSTRAINT "message_feedback_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_keys" ADD CONSTRAINT "app_keys_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "end_user_usage" ADD CONSTRAINT "end_user_usage_end_user_id_end_users_id_fk" FOREIGN KEY ("end_user_id") REFERENCES "public"."end_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "end_users" ADD CONSTRAINT "end_users_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "app_keys_hash_idx" ON "app_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "app_keys_app_idx" ON "app_keys" USING btree ("app_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_slug_idx" ON "apps" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "apps_workspace_idx" ON "apps" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "end_user_usage_day_idx" ON "end_user_usage" USING btree ("end_user_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "end_users_identity_idx" ON "end_users" USING btree ("app_id","kind","external_id");--> statement-breakpoint
CREATE INDEX "conversations_end_user_idx" ON "conversations" USING btree ("app_id","end_user_id","id");--> statement-breakpoint
CREATE INDEX "workflow_runs_end_user_idx" ON "workflow_runs" USING btree ("app_id","end_user_id","id");