// Every table of the payment service, for drizzle-kit and the typed query API. The webhook
// engine's tables come from packages/webhooks so both services deliver the same way.
export * from "@app/webhooks/schema";
export * from "../dashboard/schema.ts";
export * from "../idempotency/schema.ts";
export * from "../ledger/schema.ts";
export * from "../merchants/schema.ts";
export * from "../payments/schema.ts";
export * from "../payouts/schema.ts";
export * from "../refunds/schema.ts";
