import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BinaryCache, binaryKey } from "./binary-cache.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "binary-cache-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("binaryKey", () => {
  it("changes with any part and does not confuse part boundaries", () => {
    expect(binaryKey(["go", "1.19", "code"])).toMatch(/^[0-9a-f]{64}$/);
    expect(binaryKey(["go", "1.19", "code"])).toBe(binaryKey(["go", "1.19", "code"]));
    expect(binaryKey(["go", "1.19", "code"])).not.toBe(binaryKey(["go", "1.20", "code"]));
    expect(binaryKey(["ab", "c"])).not.toBe(binaryKey(["a", "bc"]));
  });
});

describe("BinaryCache", () => {
  it("stores executable files and finds them again, also from a new instance", () => {
    const dir = tempDir();
    const key = binaryKey(["x"]);
    const cache = new BinaryCache(dir, 1024);
    expect(cache.get(key)).toBeUndefined();
    const path = cache.put(key, Buffer.from("binary"));
    expect(readFileSync(path, "utf8")).toBe("binary");
    expect(cache.get(key)).toBe(path);
    expect(new BinaryCache(dir, 1024).get(key)).toBe(path);
  });

  it("evicts the least recently used binaries past the size cap", () => {
    const dir = tempDir();
    const cache = new BinaryCache(dir, 250);
    const [a, b, c] = ["a", "b", "c"].map((name) => binaryKey([name])) as [string, string, string];
    cache.put(a, Buffer.alloc(100));
    const pathB = cache.put(b, Buffer.alloc(100));
    // Make a the most recently used; b becomes the eviction candidate.
    utimesSync(pathB, new Date(1000), new Date(1000));
    const reopened = new BinaryCache(dir, 250);
    expect(reopened.get(a)).toBeDefined();
    reopened.put(c, Buffer.alloc(100));
    expect(existsSync(join(dir, b))).toBe(false);
    expect(reopened.get(a)).toBeDefined();
    expect(reopened.get(c)).toBeDefined();
    expect(reopened.totalBytes).toBe(200);
  });

  it("keeps a binary larger than the cap until the next one arrives", () => {
    const dir = tempDir();
    const cache = new BinaryCache(dir, 50);
    const big = binaryKey(["big"]);
    cache.put(big, Buffer.alloc(100));
    expect(cache.get(big)).toBeDefined();
    cache.put(binaryKey(["next"]), Buffer.alloc(10));
    expect(cache.get(big)).toBeUndefined();
  });
});
