import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "../workspaces/schema.ts";

/** A tool as an MCP server lists it, kept so agents still know a server's tools while it is down. */
export interface KnownMcpTool {
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * A workspace's connection to a remote MCP server. Its secrets (a bearer token, custom headers,
 * OAuth tokens) are AES-256-GCM ciphertext bound to the row like credentials; the names of the
 * headers and a hint of the token are what people see.
 */
export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    url: text("url").notNull(),
    /** `auto` tries Streamable HTTP and falls back to the older HTTP+SSE transport. */
    transport: text("transport").$type<"auto" | "streamable_http" | "sse">().notNull().default("auto"),
    authType: text("auth_type").$type<"none" | "bearer" | "headers" | "oauth">().notNull().default("none"),
    /** `{ bearer_token?, headers? }` as JSON, encrypted. */
    encryptedSecrets: text("encrypted_secrets"),
    headerNames: jsonb("header_names").$type<string[]>().notNull().default([]),
    secretHint: text("secret_hint"),
    /** OAuth client registration and tokens as JSON, encrypted; written by the authorization flow. */
    encryptedOauth: text("encrypted_oauth"),
    /** The tools the server listed the last time it was reached. */
    tools: jsonb("tools").$type<KnownMcpTool[]>(),
    toolsCheckedAt: timestamp("tools_checked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("mcp_servers_workspace_idx").on(table.workspaceId, table.id)],
);

export type McpServerRow = typeof mcpServers.$inferSelect;
