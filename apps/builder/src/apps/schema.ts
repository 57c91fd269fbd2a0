import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "../agents/schema.ts";
import { workflows } from "../workflows/schema.ts";
import { workspaces } from "../workspaces/schema.ts";

export interface AppTheme {
  color: string;
  dark: boolean;
}

export interface AppRateLimit {
  requests: number;
  window_seconds: number;
}

/**
 * An agent or a workflow published to end users: a web app at /a/{slug}, the widget, and the
 * public API under /api/public/apps/{slug}. Exactly one of `agentId` and `workflowId` is set.
 */
export const apps = pgTable(
  "apps",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"agent" | "workflow">().notNull(),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    workflowId: text("workflow_id").references(() => workflows.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Unique across the server: it is the app's public address. */
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    theme: jsonb("theme").$type<AppTheme>().notNull(),
    starterPrompts: jsonb("starter_prompts").$type<string[]>().notNull().default([]),
    allowedOrigins: jsonb("allowed_origins").$type<string[]>().notNull().default([]),
    rateLimit: jsonb("rate_limit").$type<AppRateLimit | null>(),
    endUserCreditLimit: integer("end_user_credit_limit"),
    /** The HS256 key host sites sign end-user tokens with, sealed like credentials. */
    endUserSecretSealed: text("end_user_secret_sealed").notNull(),
    endUserSecretHint: text("end_user_secret_hint").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex("apps_slug_idx").on(table.slug),
    index("apps_workspace_idx").on(table.workspaceId, table.id),
  ],
);

/** Server-to-server keys of one app: they reach its public API and nothing else. */
export const appKeys = pgTable(
  "app_keys",
  {
    id: text("id").primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => apps.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("app_keys_hash_idx").on(table.keyHash),
    index("app_keys_app_idx").on(table.appId, table.id),
  ],
);

/**
 * A person using an app: anonymous (a random id the browser keeps) or the host site's own user
 * (`customer`: a signed token's `sub`, or `X-End-User` with an app key).
 */
export const endUsers = pgTable(
  "end_users",
  {
    id: text("id").primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => apps.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    kind: text("kind").$type<"anonymous" | "customer">().notNull(),
    externalId: text("external_id").notNull(),
    name: text("name"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
  },
  (table) => [uniqueIndex("end_users_identity_idx").on(table.appId, table.kind, table.externalId)],
);

/** Credits and tokens an end user spent per UTC day: what `end_user_credit_limit` is checked against. */
export const endUserUsage = pgTable(
  "end_user_usage",
  {
    endUserId: text("end_user_id")
      .notNull()
      .references(() => endUsers.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    appId: text("app_id").notNull(),
    credits: integer("credits").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    requests: integer("requests").notNull().default(0),
  },
  (table) => [uniqueIndex("end_user_usage_day_idx").on(table.endUserId, table.day)],
);

export type AppRow = typeof apps.$inferSelect;
export type AppKeyRow = typeof appKeys.$inferSelect;
export type EndUserRow = typeof endUsers.$inferSelect;
