import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeIfStale } from "./analyze-if-stale.ts";
import { containsPattern } from "./like-pattern.ts";
import { queryRows } from "./statements.ts";
import { migrationsFolder } from "./test-migrations.ts";
import { createTestDatabase } from "./testing.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase({ schema: {}, migrationsFolder: migrationsFolder() });
});
afterAll(() => database?.close());

async function matches(value: string, search: string): Promise<boolean> {
  const [row] = await queryRows<{ hit: boolean }>(
    database.db,
    sql`select ${value}::text ilike ${containsPattern(search)} as hit`,
  );
  return row?.hit === true;
}

describe("containsPattern", () => {
  it("matches the text anywhere, case-insensitively, with %, _ and \\ taken literally", async () => {
    expect(await matches("Save 50% today", "50%")).toBe(true);
    expect(await matches("Save 50 today", "50%")).toBe(false);
    expect(await matches("a_b", "a_b")).toBe(true);
    expect(await matches("axb", "a_b")).toBe(false);
    expect(await matches("C:\\path", "c:\\P")).toBe(true);
    expect(await matches("C:path", "c:\\p")).toBe(false);
    expect(await matches("Ünïcödé ÜBER", "über")).toBe(true);
    expect(await matches("こんにちは世界", "世界")).toBe(true);
  });
});

describe("analyzeIfStale", () => {
  it("analyzes a table never analyzed or changed by a fifth since, and leaves a fresh one alone", async () => {
    await database.db.execute(sql`create table if not exists stale_rows (id int primary key)`);
    await database.db.execute(sql`insert into stale_rows select generate_series(1, 2000)`);
    expect(await analyzeIfStale(database.db, ["stale_rows", "no_such_table"])).toEqual(["stale_rows"]);
    const [stats] = await queryRows<{ reltuples: number }>(
      database.db,
      sql`select reltuples from pg_class where relname = 'stale_rows'`,
    );
    expect(stats?.reltuples).toBe(2000);
    expect(await analyzeIfStale(database.db, ["stale_rows"])).toEqual([]);
  });
});
