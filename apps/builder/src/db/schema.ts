// Every table of the builder, for drizzle-kit and the typed query API.
export * from "../agents/schema.ts";
export * from "../auth/schema.ts";
export * from "../credentials/schema.ts";
export * from "../files/schema.ts";
export * from "../generation/schema.ts";
export * from "../keys/schema.ts";
export * from "../knowledge/schema.ts";
export * from "../usage/schema.ts";
export * from "../workflows/schema.ts";
export * from "../workspaces/schema.ts";
