ALTER TABLE "workflow_node_runs" ADD COLUMN "logs" jsonb;--> statement-breakpoint
CREATE INDEX "workflow_runs_workflow_status_idx" ON "workflow_runs" USING btree ("workflow_id","status","id");