// Every table of the payment service, for drizzle-kit and the typed query API.
export * from "../merchants/schema.ts";
