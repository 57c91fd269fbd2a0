import { sql } from "drizzle-orm";
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.ts";

/**
 * Every resource belongs to a workspace. Each user gets one personal workspace to start and may
 * create or join more. `ownerUserId` is the one owner (also a member with the role `owner`): deleting
 * the owner's account deletes the workspace with everything in it.
 */
export const workspaces = pgTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    ownerUserId: text("owner_user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** The workspace made for its owner at sign-up; it stops being personal when ownership moves. */
    isPersonal: boolean("is_personal").notNull().default(false),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("workspaces_personal_owner_idx").on(table.ownerUserId).where(sql`${table.isPersonal}`),
    index("workspaces_owner_idx").on(table.ownerUserId),
  ],
);

/** Who belongs to a workspace and with which role (`owner`, `admin`, `editor`, `viewer`). */
export const workspaceMembers = pgTable(
  "workspace_members",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    role: text("role").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.workspaceId, table.userId] }),
    index("workspace_members_user_idx").on(table.userId),
    // One owner per workspace, whatever the code above the database does.
    uniqueIndex("workspace_members_one_owner_idx").on(table.workspaceId).where(sql`${table.role} = 'owner'`),
  ],
);

/** An invitation by e-mail to join a workspace with a role; accepted once, before it expires. */
export const workspaceInvitations = pgTable(
  "workspace_invitations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").notNull(),
    invitedByUserId: text("invited_by_user_id").references(() => user.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedByUserId: text("accepted_by_user_id").references(() => user.id, { onDelete: "set null" }),
  },
  (table) => [index("workspace_invitations_workspace_idx").on(table.workspaceId, table.id)],
);

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type WorkspaceInvitationRow = typeof workspaceInvitations.$inferSelect;
