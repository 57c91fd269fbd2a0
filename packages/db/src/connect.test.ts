import { pgTable, text } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./connect.ts";
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
