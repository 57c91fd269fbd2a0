import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Db } from "./connect.ts";

const MIB = 1024 * 1024;

export interface CacheSize {
  /** The page cache to start PGlite with. */
  megabytes: number;
  /** What the database's relation files (tables and indexes) take on disk now. */
  dataMegabytes: number;
  /** Whether the data is larger than `max`, so part of it is read from disk on each use. */
  isCapped: boolean;
}

/** Besides the hot set: the catalogue and the recent pages of everything else. */
const HOT_SET_HEADROOM_MB = 16;

/**
 * An embedded database's page cache (`shared_buffers`) sized to what needs to stay hot: PGlite
 * holds its whole cache resident from the start, so a fixed large cache costs an empty installation
 * hundreds of MB. With a hot set recorded by the last run (`recordHotSet`: the relations searches
 * read at random, such as vector indexes and postings) the cache gets that plus a quarter for growth
 * and some headroom; history (runs, messages) is read recent-first and left to the OS's file cache,
 * so a year of it does not grow the cache. Without one (a first start) the cache is sized from every
 * relation on disk. Within [min, max] either way. It is decided when the service starts: data that
 * grows past it while running is read through the OS's file cache until the next start.
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
  const hotMegabytes = dataDir ? readHotSet(dataDir) : undefined;
  const wanted =
    hotMegabytes === undefined ? dataMegabytes * 1.25 : hotMegabytes * 1.25 + HOT_SET_HEADROOM_MB;
  // Rounded up to 16 MB steps, so small growth does not change the setting at every start.
  const rounded = Math.ceil(wanted / 16) * 16;
  return {
    megabytes: Math.min(bounds.max, Math.max(bounds.min, rounded)),
    dataMegabytes,
    isCapped: (hotMegabytes ?? dataMegabytes) > bounds.max,
  };
}

/** Beside the data directory, not in it: PostgreSQL owns what is inside. */
const hotSetFile = (dataDir: string) => `${dataDir.replace(/\/+$/, "")}.hot-set.json`;

function readHotSet(dataDir: string): number | undefined {
  try {
    const { megabytes } = JSON.parse(readFileSync(hotSetFile(dataDir), "utf8")) as { megabytes?: unknown };
    return typeof megabytes === "number" && Number.isFinite(megabytes) && megabytes >= 0
      ? megabytes
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Measures the relations (with their indexes and TOAST) that should stay in the page cache and
 * records their size beside `dataDir`, for `embeddedCacheSize` at the next start.
 *
 * @example await recordHotSet(db, "./data/builder/db", ["knowledge_chunks", "knowledge_terms"]);
 */
export async function recordHotSet(
  db: Db<Record<string, unknown>>,
  dataDir: string,
  tables: readonly string[],
): Promise<number> {
  const result = await db.execute<{ bytes: string | number | null }>(sql`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'
      and c.relname in (${sql.join(
        tables.map((table) => sql`${table}`),
        sql`, `,
      )})`);
  const rows = (result as { rows?: { bytes: string | number | null }[] }).rows ?? [];
  const megabytes = Math.ceil(Number(rows[0]?.bytes ?? 0) / MIB);
  writeFileSync(hotSetFile(dataDir), `${JSON.stringify({ megabytes, tables })}\n`);
  return megabytes;
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
