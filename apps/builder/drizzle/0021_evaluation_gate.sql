ALTER TABLE "agent_versions" ADD COLUMN "gate_result" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "evaluation_gate" jsonb;