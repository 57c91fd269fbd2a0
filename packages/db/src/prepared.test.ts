import { eq, sql } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executePrepared, preparedPerDb } from "./prepared.ts";
import { migrationsFolder } from "./test-migrations.ts";
import { createTestDatabase } from "./testing.ts";

const notes = pgTable("notes", { id: text("id").primaryKey(), body: text("body").notNull() });
const schema = { notes };

let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;

beforeAll(async () => {
  database = await createTestDatabase({ schema, migrationsFolder: migrationsFolder() });
  await database.db.execute(sql`create table notes (id text primary key, body text not null)`);
  await database.db.insert(notes).values([
    { id: "n1", body: "first" },
    { id: "n2", body: "second" },
  ]);
});
afterAll(() => database.close());

describe("executePrepared", () => {
  it("answers the rows of each call with that call's parameters", async () => {
    const bodyOf = (id: string) =>
      executePrepared<{ body: string }>(database.db, sql`select body from notes where id = ${id}`);
    expect(await bodyOf("n1")).toEqual([{ body: "first" }]);
    expect(await bodyOf("n2")).toEqual([{ body: "second" }]);
    expect(await bodyOf("n3")).toEqual([]);
  });

  it("runs inside a transaction and rolls back with it", async () => {
    await database.db
      .transaction(async (tx) => {
        await executePrepared(tx, sql`insert into notes (id, body) values (${"n9"}, ${"draft"})`);
        expect(await executePrepared(tx, sql`select id from notes where id = ${"n9"}`)).toEqual([
          { id: "n9" },
        ]);
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await executePrepared(database.db, sql`select id from notes where id = ${"n9"}`)).toEqual([]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "prepares one named statement per text on PostgreSQL",
    async () => {
      // One transaction is one connection: named statements are per connection.
      const count = await database.db.transaction(async (tx) => {
        for (const id of ["n1", "n2", "n1"])
          await executePrepared(tx, sql`select body from notes where id = ${id} and 1 = 1`);
        const [row] = await executePrepared<{ count: number }>(
          tx,
          sql`select count(*)::int as count from pg_prepared_statements where statement like ${"%and 1 = 1%"}`,
        );
        return row?.count;
      });
      expect(count).toBe(1);
      expect((await executePrepared(database.db, sql`select 1 as one`))[0]).toEqual({ one: 1 });
    },
  );
});

describe("preparedPerDb", () => {
  it("builds once per database handle and runs with placeholders", async () => {
    let builds = 0;
    const noteById = preparedPerDb((db: typeof database.db) => {
      builds += 1;
      return db
        .select()
        .from(notes)
        .where(eq(notes.id, sql.placeholder("id")))
        .prepare("note_by_id");
    });
    expect(await noteById(database.db).execute({ id: "n2" })).toEqual([{ id: "n2", body: "second" }]);
    expect(await noteById(database.db).execute({ id: "n1" })).toEqual([{ id: "n1", body: "first" }]);
    expect(builds).toBe(1);
  });
});
