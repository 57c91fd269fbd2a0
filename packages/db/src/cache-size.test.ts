import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { embeddedCacheSize, recordHotSet } from "./cache-size.ts";
import type { Db } from "./connect.ts";

const MIB = 1024 * 1024;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data directory whose relation files take `megabytes` (sparse files: nothing is written). */
function dataDirWith(megabytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), "cache-size-"));
  dirs.push(dir);
  mkdirSync(join(dir, "base", "5"), { recursive: true });
  writeFileSync(join(dir, "base", "5", "16384"), "");
  if (megabytes > 0) {
    writeFileSync(join(dir, "base", "5", "16385"), "");
    truncateSync(join(dir, "base", "5", "16385"), megabytes * MIB);
  }
  // WAL and other files outside base/ are not cached pages.
  mkdirSync(join(dir, "pg_wal"));
  writeFileSync(join(dir, "pg_wal", "000000010000000000000001"), Buffer.alloc(MIB));
  return dir;
}

describe("embeddedCacheSize", () => {
  it("gives a new or empty database the minimum", () => {
    expect(embeddedCacheSize(undefined, { min: 16, max: 512 })).toEqual({
      megabytes: 16,
      dataMegabytes: 0,
      isCapped: false,
    });
    expect(embeddedCacheSize(dataDirWith(0), { min: 16, max: 512 }).megabytes).toBe(16);
  });

  it("gives data the size of its relations plus a quarter, in 16 MB steps", () => {
    expect(embeddedCacheSize(dataDirWith(30), { min: 16, max: 512 })).toEqual({
      megabytes: 48,
      dataMegabytes: 30,
      isCapped: false,
    });
    expect(embeddedCacheSize(dataDirWith(200), { min: 16, max: 512 }).megabytes).toBe(256);
  });

  it("stops at the maximum and says the data is larger", () => {
    expect(embeddedCacheSize(dataDirWith(600), { min: 16, max: 512 })).toEqual({
      megabytes: 512,
      dataMegabytes: 600,
      isCapped: true,
    });
  });

  it("sizes from the recorded hot set, not from history, once a run has recorded one", () => {
    const dir = dataDirWith(900);
    writeFileSync(`${dir}.hot-set.json`, JSON.stringify({ megabytes: 40, tables: ["knowledge_chunks"] }));
    dirs.push(`${dir}.hot-set.json`);
    // 40 × 1.25 + 16 = 66 → 80 in 16 MB steps; 900 MB of runs and messages do not count.
    expect(embeddedCacheSize(dir, { min: 16, max: 512 })).toEqual({
      megabytes: 80,
      dataMegabytes: 900,
      isCapped: false,
    });
  });

  it("falls back to all data when the recorded hot set is unreadable", () => {
    const dir = dataDirWith(30);
    writeFileSync(`${dir}.hot-set.json`, "{ not json");
    dirs.push(`${dir}.hot-set.json`);
    expect(embeddedCacheSize(dir, { min: 16, max: 512 }).megabytes).toBe(48);
  });
});

describe("recordHotSet", () => {
  it("records the size of the named tables with their indexes, and the next sizing uses it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hot-set-"));
    dirs.push(dir, `${dir}/db.hot-set.json`);
    const client = await PGlite.create(`${dir}/db`);
    try {
      const db = drizzle({ client }) as unknown as Db<Record<string, unknown>>;
      await db.execute(sql`create table searched (id int primary key, body text)`);
      await db.execute(sql`create table history (id int primary key, body text)`);
      // ~3 MB searched (plus its index), ~12 MB of history that must not count.
      await db.execute(
        sql`insert into searched select i, repeat(md5(i::text), 30) from generate_series(1, 3000) i`,
      );
      await db.execute(
        sql`insert into history select i, repeat(md5(i::text), 30) from generate_series(1, 12000) i`,
      );

      const megabytes = await recordHotSet(db, `${dir}/db`, ["searched"]);

      expect(megabytes).toBeGreaterThanOrEqual(3);
      expect(megabytes).toBeLessThan(8);
      const cache = embeddedCacheSize(`${dir}/db`, { min: 1, max: 512 });
      expect(cache.megabytes).toBe(Math.ceil((megabytes * 1.25 + 16) / 16) * 16);
    } finally {
      await client.close();
    }
  });
});
