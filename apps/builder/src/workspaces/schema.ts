import { pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { user } from "../auth/schema.ts";

/** Every resource belongs to a workspace; each user has one personal workspace to start. */
export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  ownerUserId: text("owner_user_id")
    .notNull()
    .unique()
    .references(() => user.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
