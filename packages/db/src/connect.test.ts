import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pgTable, text } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./connect.ts";
import { createTestDatabase } from "./testing.ts";

const widgets = pgTable("widgets", { id: text("id").primaryKey() });
const schema = { widgets };

/** A drizzle-kit style migrations folder with one migration that fails if it runs twice. */
function migrationsFolder(): string {
  const folder = join(mkdtempSync(join(tmpdir(), "db-test-")), "service", "drizzle");
  mkdirSync(join(folder, "meta"), { recursive: true });
  writeFileSync(
    join(folder, "meta", "_journal.json"),
    JSON.stringify({
      version: "7",
      dialect: "postgresql",
      entries: [{ idx: 0, version: "7", when: 1, tag: "0000_widgets", breakpoints: true }],
    }),
  );
  writeFileSync(join(folder, "0000_widgets.sql"), 'CREATE TABLE "widgets" ("id" text PRIMARY KEY NOT NULL);');
  return folder;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("openDatabase on PostgreSQL", () => {
  it("lets processes that start at once apply the migrations once between them", async () => {
    const folder = migrationsFolder();
    // An empty database of its own: createTestDatabase with a folder that has no migrations yet.
    const emptyFolder = join(folder, "..", "..", "empty", "drizzle");
    mkdirSync(join(emptyFolder, "meta"), { recursive: true });
    writeFileSync(
      join(emptyFolder, "meta", "_journal.json"),
      JSON.stringify({ version: "7", dialect: "postgresql", entries: [] }),
    );
    const target = await createTestDatabase({ schema, migrationsFolder: emptyFolder });
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
