import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedPgliteDataDirs } from "./seed-data-dirs.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "seed-data-dirs-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("seedPgliteDataDirs", () => {
  it("gives a missing and an empty directory each a cluster of their own that opens, and leaves one in use alone", async () => {
    const missing = join(root, "builder", "db");
    const empty = join(root, "payments", "db");
    mkdirSync(empty, { recursive: true });
    const inUse = join(root, "other", "db");
    mkdirSync(inUse, { recursive: true });
    writeFileSync(join(inUse, "something"), "kept");

    expect(await seedPgliteDataDirs([missing, empty, inUse])).toEqual([missing, empty]);

    expect(readdirSync(inUse)).toEqual(["something"]);
    // No staging copies are left beside the targets.
    expect(readdirSync(join(root, "builder"))).toEqual(["db"]);
    expect(readdirSync(join(root, "payments"))).toEqual(["db"]);
    const first = await PGlite.create(missing);
    await first.exec("create table marker (id int); insert into marker values (1)");
    await first.close();
    const second = await PGlite.create(empty);
    const tables = await second.query("select count(*)::int as n from pg_tables where tablename = 'marker'");
    await second.close();
    expect(tables.rows).toEqual([{ n: 0 }]);
    // An initdb and three cluster opens: well over the default timeout on a busy 2-core machine.
  }, 180_000);

  it("does nothing when every directory already holds a cluster", async () => {
    const dir = join(root, "builder", "db");
    expect(existsSync(join(dir, "PG_VERSION"))).toBe(true);
    expect(await seedPgliteDataDirs([dir])).toEqual([]);
    const reopened = await PGlite.create(dir);
    const marker = await reopened.query("select id from marker");
    await reopened.close();
    expect(marker.rows).toEqual([{ id: 1 }]);
  });
});
