import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A drizzle-kit style migrations folder in a new temporary directory, for this package's tests:
 * the journal and one `.sql` file per migration, in order.
 *
 * @example const folder = migrationsFolder([{ tag: "0000_widgets", sql: 'CREATE TABLE "widgets" ("id" text)' }]);
 */
export function migrationsFolder(migrations: { tag: string; sql: string }[] = []): string {
  const folder = join(mkdtempSync(join(tmpdir(), "db-test-")), "drizzle");
  mkdirSync(join(folder, "meta"), { recursive: true });
  const entries = migrations.map(({ tag }, idx) => ({
    idx,
    version: "7",
    when: idx + 1,
    tag,
    breakpoints: true,
  }));
  writeFileSync(
    join(folder, "meta", "_journal.json"),
    JSON.stringify({ version: "7", dialect: "postgresql", entries }),
  );
  for (const { tag, sql } of migrations) writeFileSync(join(folder, `${tag}.sql`), sql);
  return folder;
}
