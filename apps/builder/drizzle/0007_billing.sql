CREATE TABLE "billing_ledger" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"credits" bigint NOT NULL,
	"description" text NOT NULL,
	"reference" text NOT NULL,
	"order_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"pack_id" text NOT NULL,
	"credits" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"payment_id" text,
	"checkout_url" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"paid_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "billing_payment_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"payment_id" text,
	"order_id" text,
	"outcome" text NOT NULL,
	"source" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_payment_link" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"endpoint_id" text,
	"webhook_url" text,
	"sealed_secret" text,
	"events_cursor" text,
	"reconciled_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_ledger" ADD CONSTRAINT "billing_ledger_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_orders" ADD CONSTRAINT "billing_orders_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_ledger_reference_idx" ON "billing_ledger" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "billing_ledger_workspace_idx" ON "billing_ledger" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_orders_payment_idx" ON "billing_orders" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "billing_orders_workspace_idx" ON "billing_orders" USING btree ("workspace_id","id");--> statement-breakpoint
-- The ledger is append-only: a correction is a new entry, never an edit of an old one.
CREATE FUNCTION "billing_ledger_refuse_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'billing_ledger is append-only: add an entry instead of changing one';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "billing_ledger_append_only" BEFORE UPDATE ON "billing_ledger" FOR EACH ROW EXECUTE FUNCTION "billing_ledger_refuse_update"();
