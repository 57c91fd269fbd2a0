CREATE TABLE "billing_balances" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"credits" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_balances" ADD CONSTRAINT "billing_balances_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE FUNCTION "billing_ledger_add_to_balance"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "billing_balances" ("workspace_id", "credits") VALUES (NEW."workspace_id", NEW."credits")
  ON CONFLICT ("workspace_id") DO UPDATE SET "credits" = "billing_balances"."credits" + EXCLUDED."credits";
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "billing_ledger_balance" AFTER INSERT ON "billing_ledger" FOR EACH ROW EXECUTE FUNCTION "billing_ledger_add_to_balance"();
--> statement-breakpoint
INSERT INTO "billing_balances" ("workspace_id", "credits")
SELECT "workspace_id", sum("credits") FROM "billing_ledger" GROUP BY "workspace_id";
