import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
