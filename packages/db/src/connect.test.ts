import { sql } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./connect.ts";
import { queryRows } from "./statements.ts";
import { migrationsFolder } from "./test-migrations.ts";
import { createTestDatabase } from "./testing.ts";

const widgets = pgTable("widgets", { id: text("id").primaryKey() });
const schema = { widgets };

describe.skipIf(!process.env.TEST_DATABASE_URL)("openDatabase on PostgreSQL", () => {
  it("lets processes that start at once apply the migrations once between them", async () => {
    // One migration that fails if it runs twice.
    const folder = migrationsFolder([
      { tag: "0000_widgets", sql: 'CREATE TABLE "widgets" ("id" text PRIMARY KEY NOT NULL);' },
    ]);
    // An empty database of its own: createTestDatabase with a folder that has no migrations yet.
    const target = await createTestDatabase({ schema, migrationsFolder: migrationsFolder() });
    try {
      const opened = await Promise.all(
        // A pool of one as well: the lock must not hold the only connection migrating needs.
        Array.from({ length: 4 }, (_, i) =>
          openDatabase({ url: target.url, schema, migrationsFolder: folder, poolSize: i === 0 ? 1 : 10 }),
        ),
      );
      await opened[0]?.db.insert(widgets).values({ id: "w1" });
      expect(await opened[3]?.db.select().from(widgets)).toEqual([{ id: "w1" }]);
      await Promise.all(opened.map((database) => database.close()));
    } finally {
      await target.close();
    }
  });
});

describe("openDatabase on PGlite", () => {
  it("sizes the page cache and keeps the configuration initdb wrote", async () => {
    const folder = migrationsFolder([
      { tag: "0000_widgets", sql: 'CREATE TABLE "widgets" ("id" text PRIMARY KEY NOT NULL);' },
    ]);
    const database = await openDatabase({ schema, migrationsFolder: folder, cacheMegabytes: 160 });
    try {
      const rows = await queryRows<{ name: string; setting: string }>(
        database.db,
        sql`select name, current_setting(name) as setting from pg_settings where name in ('shared_buffers', 'TimeZone', 'default_text_search_config')`,
      );
      expect(Object.fromEntries(rows.map((row) => [row.name, row.setting]))).toEqual({
        default_text_search_config: "pg_catalog.english",
        shared_buffers: "160MB",
        TimeZone: "UTC",
      });
    } finally {
      await database.close();
    }
  });
});
