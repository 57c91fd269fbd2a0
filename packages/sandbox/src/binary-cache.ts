import { createHash, randomBytes } from "node:crypto";
import { chmodSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The cache key of a compiled program: everything that changes the binary. A new toolchain, wrapper
 * or set of flags gives new keys, so stale binaries are never run, only evicted.
 *
 * @example binaryKey(["go", "go1.19.8", FLAGS, wrapperSource, code])
 */
export function binaryKey(parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) {
    // Length-prefixed, so ("ab","c") and ("a","bc") differ.
    hash.update(`${Buffer.byteLength(part)}:`).update(part);
  }
  return hash.digest("hex");
}

interface Entry {
  size: number;
  usedAt: number;
}

/**
 * Compiled binaries on disk, named by key, evicted least-recently-used past `maxBytes`. The files
 * are written by the host only (the compile sandbox sends the bytes over a pipe), so nothing in
 * here can be a symlink planted by user code.
 *
 * @example const cache = new BinaryCache("/var/cache/app-sandbox/bin", 256 << 20); cache.get(key) ?? cache.put(key, bytes);
 */
export class BinaryCache {
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  #totalBytes = 0;

  constructor(dir: string, maxBytes: number) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
    // Other processes may share the directory: start from what is on disk, oldest use first.
    for (const name of readdirSync(dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const stats = statSync(join(dir, name), { throwIfNoEntry: false });
      if (!stats?.isFile()) continue;
      this.#entries.set(name, { size: stats.size, usedAt: stats.mtimeMs });
      this.#totalBytes += stats.size;
    }
    this.#evict();
  }

  /** The binary's path, marked as just used; undefined when absent (or evicted by another process). */
  get(key: string): string | undefined {
    const path = join(this.#dir, key);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats?.isFile()) {
      this.#forget(key);
      return undefined;
    }
    const now = Date.now();
    // mtime records the last use, so LRU order survives restarts and is shared between processes.
    utimesSync(path, new Date(now), new Date(now));
    const entry = this.#entries.get(key);
    if (entry) entry.usedAt = now;
    else {
      this.#entries.set(key, { size: stats.size, usedAt: now });
      this.#totalBytes += stats.size;
    }
    return path;
  }

  /** Stores the bytes under `key` (atomically: readers see the whole file or none) and returns its path. */
  put(key: string, bytes: Buffer): string {
    const path = join(this.#dir, key);
    const temporary = join(this.#dir, `.tmp-${randomBytes(8).toString("hex")}`);
    writeFileSync(temporary, bytes, { mode: 0o755 });
    chmodSync(temporary, 0o755);
    renameSync(temporary, path);
    this.#forget(key);
    this.#entries.set(key, { size: bytes.length, usedAt: Date.now() });
    this.#totalBytes += bytes.length;
    this.#evict(key);
    return path;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  #forget(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#totalBytes -= entry.size;
    this.#entries.delete(key);
  }

  #evict(keep?: string): void {
    if (this.#totalBytes <= this.#maxBytes) return;
    const oldestFirst = [...this.#entries.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [key] of oldestFirst) {
      if (this.#totalBytes <= this.#maxBytes) break;
      if (key === keep) continue;
      try {
        unlinkSync(join(this.#dir, key));
      } catch {
        // Another process evicted it first.
      }
      this.#forget(key);
    }
  }
}
