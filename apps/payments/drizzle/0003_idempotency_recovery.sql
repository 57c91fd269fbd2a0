ALTER TABLE "idempotency_keys" ADD COLUMN "locked_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "recovery_point" text;