import { eq, sql } from "drizzle-orm";
import { integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "./test-migrations.ts";
import { createTestDatabase } from "./testing.ts";
import { writeTogether } from "./write-together.ts";

const folders = pgTable("folders", { id: text("id").primaryKey(), files: integer("files").notNull() });
const files = pgTable("files", {
  id: text("id").primaryKey(),
  folderId: text("folder_id")
    .notNull()
    .references(() => folders.id),
});
const events = pgTable("events", {
  id: text("id").primaryKey(),
  payload: jsonb("payload").notNull(),
  at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
  note: text("note").notNull().default("none"),
});
const schema = { folders, files, events };

let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;

beforeAll(async () => {
  database = await createTestDatabase({ schema, migrationsFolder: migrationsFolder() });
  await database.db.execute(sql`create table folders (id text primary key, files integer not null)`);
  await database.db.execute(
    sql`create table files (id text primary key, folder_id text not null references folders)`,
  );
  await database.db.execute(
    sql`create table events (id text primary key, payload jsonb not null, at timestamptz not null, note text not null default 'none')`,
  );
  await database.db.insert(folders).values({ id: "f1", files: 0 });
});
afterAll(() => database.close());

describe("writeTogether", () => {
  it("applies every write in one statement, a child row with its parent's update", async () => {
    const { db } = database;
    await writeTogether(db, [
      db.insert(files).values([
        { id: "a", folderId: "f1" },
        { id: "b", folderId: "f1" },
      ]),
      db.update(folders).set({ files: 2 }).where(eq(folders.id, "f1")),
    ]);
    expect(await db.select().from(files).orderBy(files.id)).toEqual([
      { id: "a", folderId: "f1" },
      { id: "b", folderId: "f1" },
    ]);
    expect(await db.select().from(folders)).toEqual([{ id: "f1", files: 2 }]);
  });

  it("applies none of them when one fails", async () => {
    const { db } = database;
    await expect(
      writeTogether(db, [
        db.update(folders).set({ files: 99 }).where(eq(folders.id, "f1")),
        db.insert(files).values({ id: "c", folderId: "no-such-folder" }),
      ]),
    ).rejects.toThrow();
    expect(await db.select().from(folders)).toEqual([{ id: "f1", files: 2 }]);
    expect(await db.select().from(files).where(eq(files.id, "c"))).toEqual([]);
  });

  it("does nothing for no writes", async () => {
    await expect(writeTogether(database.db, [])).resolves.toBeUndefined();
  });
});
