ALTER TABLE "agent_versions" ADD COLUMN "gate_result" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "evaluation_gate" jsonb;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD COLUMN "gate_result" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "evaluation_gate" jsonb;