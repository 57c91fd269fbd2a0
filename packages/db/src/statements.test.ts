import { PGlite, types } from "@electric-sql/pglite";
import { eq, sql } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasExclusiveRunners, preparedQuery, queryRows, withNamedStatements } from "./statements.ts";
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

/** Named statements on this connection whose text contains `marker`. */
async function preparedWith(db: Parameters<typeof queryRows>[0], marker: string): Promise<number> {
  const [row] = await queryRows<{ count: number }>(
    db,
    sql`select count(*)::int as count from pg_prepared_statements where statement like ${`%${marker}%`} and name like 'stmt_%'`,
  );
  return row?.count ?? -1;
}

describe("queryRows", () => {
  it("answers the rows of each call with that call's parameters, prepared or not", async () => {
    for (const isPrepared of [false, true]) {
      const bodyOf = (id: string) =>
        queryRows<{ body: string }>(database.db, sql`select body from notes where id = ${id}`, {
          isPrepared,
        });
      expect(await bodyOf("n1")).toEqual([{ body: "first" }]);
      expect(await bodyOf("n2")).toEqual([{ body: "second" }]);
      expect(await bodyOf("n3")).toEqual([]);
    }
  });

  it("runs inside a transaction and rolls back with it", async () => {
    const isPrepared = true;
    await database.db
      .transaction(async (tx) => {
        await queryRows(tx, sql`insert into notes (id, body) values (${"n9"}, ${"draft"})`, { isPrepared });
        expect(await queryRows(tx, sql`select id from notes where id = ${"n9"}`, { isPrepared })).toEqual([
          { id: "n9" },
        ]);
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await queryRows(database.db, sql`select id from notes where id = ${"n9"}`)).toEqual([]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "prepares one named statement per text on PostgreSQL, and none unless asked",
    async () => {
      // One transaction is one connection: named statements are per connection.
      const counts = await database.db.transaction(async (tx) => {
        for (const id of ["n1", "n2", "n1"]) {
          await queryRows(tx, sql`select body from notes where id = ${id} and 1 = 1`, { isPrepared: true });
          await queryRows(tx, sql`select body from notes where id = ${id} and 2 = 2`);
        }
        return [await preparedWith(tx, "and 1 = 1"), await preparedWith(tx, "and 2 = 2")];
      });
      expect(counts).toEqual([1, 0]);
    },
  );
});

describe("preparedQuery", () => {
  const noteById = (onBuild: () => void) =>
    preparedQuery((db: typeof database.db) => {
      onBuild();
      return db
        .select()
        .from(notes)
        .where(eq(notes.id, sql.placeholder("id")));
    });

  it("builds once per database handle and runs with placeholders", async () => {
    let builds = 0;
    const byId = noteById(() => {
      builds += 1;
    });
    expect(await byId(database.db).execute({ id: "n2" })).toEqual([{ id: "n2", body: "second" }]);
    expect(await byId(database.db).execute({ id: "n1" })).toEqual([{ id: "n1", body: "first" }]);
    expect(builds).toBe(1);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "names the statement by its text, so two queries of one text share one statement on PostgreSQL",
    async () => {
      // Hand-picked names let two texts claim one name; PostgreSQL then refuses the second.
      const first = noteById(() => undefined);
      const second = noteById(() => undefined);
      const count = await database.db.transaction(async (tx) => {
        expect(await first(tx).execute({ id: "n1" })).toEqual([{ id: "n1", body: "first" }]);
        expect(await second(tx).execute({ id: "n2" })).toEqual([{ id: "n2", body: "second" }]);
        return preparedWith(tx, '"notes"."id" = $1');
      });
      expect(count).toBe(1);
    },
  );
});

describe("withNamedStatements", () => {
  let pg: PGlite;
  let client: PGlite;
  const CACHE_SIZE = 8;

  async function preparedCount(): Promise<number> {
    const { rows } = await pg.query<{ count: number }>(
      "select count(*)::int as count from pg_prepared_statements where name like 'pglite_statement_%'",
    );
    return rows[0]?.count ?? -1;
  }

  beforeAll(async () => {
    pg = await PGlite.create();
    client = withNamedStatements(pg, CACHE_SIZE);
    await pg.exec(`
      create table notes (id text primary key, body text not null, tags jsonb not null default '[]',
        created_at timestamptz not null default '2026-01-02T03:04:05Z');
      insert into notes (id, body, tags) values ('n1', 'first', '["a"]'), ('n2', 'second', '[]');
    `);
  });
  afterAll(() => pg.close());

  it("answers what PGlite's own query answers, in both row modes and with the caller's parsers", async () => {
    const text = "select id, body, tags, created_at from notes where id = any($1) order by id";
    const asText = { [types.TIMESTAMPTZ]: (value: string) => value };
    for (const options of [undefined, { rowMode: "array" as const }, { parsers: asText }]) {
      const ours = await client.query(text, [["n1", "n2"]], options);
      const theirs = await pg.query(text, [["n1", "n2"]], options);
      expect(ours.rows).toEqual(theirs.rows);
      expect(ours.fields).toEqual(theirs.fields);
    }
    const [first] = (await client.query<{ tags: unknown; created_at: unknown }>(text, [["n1"]])).rows;
    expect(first).toMatchObject({ tags: ["a"], created_at: new Date("2026-01-02T03:04:05Z") });
  });

  it("parses a text once and runs it again by name", async () => {
    const before = await preparedCount();
    for (const id of ["n1", "n2", "n3"]) await client.query("select body from notes where id = $1", [id]);
    expect(await preparedCount()).toBe(before + 1);
    const { rows } = await pg.query<{ statement: string }>(
      "select statement from pg_prepared_statements where statement like '%where id = $1%'",
    );
    expect(rows).toEqual([{ statement: "select body from notes where id = $1" }]);
  });

  it("keeps at most its cache size of statements, closing the least recently used", async () => {
    for (let i = 0; i < CACHE_SIZE * 2; i++) await client.query(`select ${i} as n`);
    expect(await preparedCount()).toBe(CACHE_SIZE);
    // The newest are still answered, and the evicted ones are prepared again when used.
    expect((await client.query<{ n: number }>("select 0 as n")).rows).toEqual([{ n: 0 }]);
  });

  it("reports a failing statement with its code and query, and goes on working", async () => {
    const failure = await client
      .query("insert into notes (id, body) values ($1, $2)", ["n1", "again"])
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "23505", query: "insert into notes (id, body) values ($1, $2)" });
    await expect(client.query("select nonsense from")).rejects.toMatchObject({ code: "42601" });
    expect((await client.query("select count(*)::int as n from notes")).rows).toEqual([{ n: 2 }]);
  });

  it("prepares again after the statements were deallocated behind its back", async () => {
    await client.query("select body from notes where id = $1", ["n1"]);
    await pg.exec("deallocate all");
    expect((await client.query("select body from notes where id = $1", ["n1"])).rows).toEqual([
      { body: "first" },
    ]);
  });

  it("runs inside a transaction, which a query from outside waits for", async () => {
    let outsideSaw: unknown;
    await client
      .transaction(async (tx) => {
        await tx.query("insert into notes (id, body) values ($1, $2)", ["n9", "draft"]);
        // Started while the transaction is open: must not run inside it, nor see its row.
        const outside = client
          .query("select count(*)::int as n from notes where id = $1", ["n9"])
          .then(({ rows }) => {
            outsideSaw = rows;
          });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(outsideSaw).toBeUndefined();
        expect((await tx.query("select body from notes where id = $1", ["n9"])).rows).toEqual([
          { body: "draft" },
        ]);
        void outside;
        throw new Error("roll back");
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error && error.message === "roll back")) throw error;
      });
    while (outsideSaw === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(outsideSaw).toEqual([{ n: 0 }]);
  });

  it("leaves everything else to PGlite", async () => {
    expect(client).toBeInstanceOf(PGlite);
    const [result] = await client.exec("select 1 as one");
    expect(result?.rows).toEqual([{ one: 1 }]);
    expect(client.closed).toBe(false);
  });

  it("finds the PGlite internals it leans on in the installed PGlite", () => {
    // When an upgrade renames them, the fallback below keeps working but this path is lost: look here.
    expect(hasExclusiveRunners(pg)).toBe(true);
  });

  it("falls back to PGlite's public query when those internals are absent", async () => {
    const withoutInternals = new Proxy(pg, {
      get: (target, property) => {
        if (property === "_runExclusiveQuery") return undefined;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const fallback = withNamedStatements(withoutInternals, CACHE_SIZE);
    expect(fallback).toBe(withoutInternals);
    const before = await preparedCount();
    const { rows } = await fallback.query("select body from notes where id = $1 and body <> 'x'", ["n2"]);
    expect(rows).toEqual([{ body: "second" }]);
    expect(await preparedCount()).toBe(before);
  });
});

describe("statements and the event loop", () => {
  it("give the event loop a turn between statements, as a round trip to PostgreSQL does, so other sockets are read meanwhile", async () => {
    const turns: string[] = [];
    setImmediate(() => turns.push("event loop"));
    await database.db.execute(sql`select 1`);
    await database.db.select().from(notes).where(eq(notes.id, "n1"));
    turns.push("statements done");
    expect(turns).toEqual(["event loop", "statements done"]);
  });

  it("give it a turn before a transaction too", async () => {
    const turns: string[] = [];
    setImmediate(() => turns.push("event loop"));
    await database.db.transaction(async (tx) => {
      await tx.select().from(notes).where(eq(notes.id, "n1"));
    });
    turns.push("transaction done");
    expect(turns).toEqual(["event loop", "transaction done"]);
  });
});
