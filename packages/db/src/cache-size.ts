import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const MIB = 1024 * 1024;

export interface CacheSize {
  /** The page cache to start PGlite with. */
  megabytes: number;
  /** What the database's relation files (tables and indexes) take on disk now. */
  dataMegabytes: number;
  /** Whether the data is larger than `max`, so part of it is read from disk on each use. */
  isCapped: boolean;
}

/**
 * An embedded database's page cache (`shared_buffers`) sized to its data: PGlite holds its whole
 * cache resident from the start, so a fixed large cache costs an empty installation hundreds of MB.
 * The cache gets the on-disk size of every relation plus a quarter for growth, within [min, max].
 * It is decided when the service starts: data that grows past it while running is read through
 * the OS's file cache until the next start.
 *
 * @example const cache = embeddedCacheSize("./data/builder/db", { min: 32, max: 512 });
 */
export function embeddedCacheSize(
  dataDir: string | undefined,
  bounds: { min: number; max: number },
): CacheSize {
  const base = dataDir ? join(dataDir, "base") : undefined;
  const dataBytes = base && existsSync(base) ? directoryBytes(base) : 0;
  const dataMegabytes = Math.ceil(dataBytes / MIB);
  // Rounded up to 16 MB steps, so small growth does not change the setting at every start.
  const wanted = Math.ceil((dataMegabytes * 1.25) / 16) * 16;
  return {
    megabytes: Math.min(bounds.max, Math.max(bounds.min, wanted)),
    dataMegabytes,
    isCapped: dataMegabytes > bounds.max,
  };
}

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) total += directoryBytes(child);
    else if (entry.isFile()) total += statSync(child).size;
  }
  return total;
}
