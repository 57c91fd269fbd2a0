CREATE TABLE "workflow_approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"node_id" text NOT NULL,
	"node_type" text NOT NULL,
	"title" text,
	"input" jsonb,
	"status" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"on_timeout" text,
	"decided_input" jsonb,
	"decided_at" timestamp with time zone,
	"decided_by" text
);
--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "error_workflow_id" text;--> statement-breakpoint
ALTER TABLE "workflow_approvals" ADD CONSTRAINT "workflow_approvals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_approvals" ADD CONSTRAINT "workflow_approvals_run_id_workflow_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."workflow_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_approvals_run_node_idx" ON "workflow_approvals" USING btree ("run_id","node_id");--> statement-breakpoint
CREATE INDEX "workflow_approvals_inbox_idx" ON "workflow_approvals" USING btree ("workspace_id","id") WHERE "workflow_approvals"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "workflow_approvals_expiry_idx" ON "workflow_approvals" USING btree ("expires_at") WHERE "workflow_approvals"."status" = 'pending' and "workflow_approvals"."expires_at" is not null;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_error_workflow_id_workflows_id_fk" FOREIGN KEY ("error_workflow_id") REFERENCES "public"."workflows"("id") ON DELETE set null ON UPDATE no action;