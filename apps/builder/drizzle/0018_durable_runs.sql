ALTER TABLE "workflow_node_runs" ADD COLUMN "attempts" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "resumes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "replay_of" text;