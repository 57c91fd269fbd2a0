import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const merchants = pgTable("merchants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Secret keys, stored as SHA-256 (they are 32 random bytes, so a slow hash buys nothing). */
export const secretKeys = pgTable(
  "secret_keys",
  {
    id: text("id").primaryKey(),
    merchantId: text("merchant_id")
      .notNull()
      .references(() => merchants.id, { onDelete: "cascade" }),
    /** `test` or `live`, from the key's prefix; it is the `environment` of everything done with the key. */
    environment: text("environment").$type<Environment>().notNull(),
    keyHash: text("key_hash").notNull().unique(),
    /** The first characters, to tell keys apart in lists without revealing them. */
    keyPrefix: text("key_prefix").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("secret_keys_merchant_idx").on(table.merchantId)],
);

export type Environment = "test" | "live";
