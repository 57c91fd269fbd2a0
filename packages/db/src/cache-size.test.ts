import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embeddedCacheSize } from "./cache-size.ts";

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
});
