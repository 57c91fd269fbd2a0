// Every table of the builder, for drizzle-kit and the typed query API.
export * from "../agents/schema.ts";
export * from "../auth/schema.ts";
export * from "../keys/schema.ts";
export * from "../workspaces/schema.ts";
