// Every table of the builder, for drizzle-kit and the typed query API. The webhook engine's tables
// (events, endpoints, deliveries, attempts) come from packages/webhooks, as in the payment service.
export * from "@app/webhooks/schema";
export * from "../agents/schema.ts";
export * from "../annotations/schema.ts";
export * from "../apps/schema.ts";
export * from "../auth/schema.ts";
export * from "../billing/schema.ts";
export * from "../credentials/schema.ts";
export * from "../evaluations/schema.ts";
export * from "../files/schema.ts";
export * from "../generation/schema.ts";
export * from "../keys/schema.ts";
export * from "../knowledge/schema.ts";
export * from "../mcp/schema.ts";
export * from "../usage/schema.ts";
export * from "../workflows/schedules/schema.ts";
export * from "../workflows/schema.ts";
export * from "../workspaces/schema.ts";
