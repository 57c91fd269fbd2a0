import { createHash } from "node:crypto";
import type { SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * Builds a query's prepared form once per database handle and hands back the same object after.
 * Drizzle otherwise rebuilds the SQL text of a query on every call (a tenth of a hot list route's
 * CPU), and a named statement lets PostgreSQL skip parsing it again on each connection.
 *
 * @example
 * const agentById = preparedPerDb((db: BuilderDb) =>
 *   db.select().from(agents).where(eq(agents.id, sql.placeholder("id"))).prepare("agent_by_id"));
 * const [row] = await agentById(db).execute({ id });
 */
export function preparedPerDb<TDb extends object, TPrepared>(
  build: (db: TDb) => TPrepared,
): (db: TDb) => TPrepared {
  const built = new WeakMap<TDb, TPrepared>();
  return (db) => {
    let prepared = built.get(db);
    if (prepared === undefined) {
      prepared = build(db);
      built.set(db, prepared);
    }
    return prepared;
  };
}

const dialect = new PgDialect();
const statementNames = new Map<string, string>();

/**
 * The name a statement's text is prepared under: derived from the text, so each distinct text is
 * one named statement on every connection and a name never stands for two texts.
 *
 * @example db._.session.prepareQuery(query, undefined, statementNameFor(query.sql), false);
 */
export function statementNameFor(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `stmt_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Runs a hand-written statement as a named prepared statement and answers its rows. PostgreSQL then
 * parses and plans it once per connection instead of on every call, which for a long statement
 * (CTEs, subqueries) costs more than running it. The name is derived from the text, so each distinct
 * text is one statement; keep the text fixed and pass values as parameters.
 *
 * @example const rows = await executePrepared<{ id: string }>(db, sql`select id from events where id > ${after}`);
 */
export async function executePrepared<TRow>(
  db: PgDatabase<PgQueryResultHKT, Record<string, unknown>>,
  statement: SQL,
): Promise<TRow[]> {
  const query = dialect.sqlToQuery(statement);
  const result = await db._.session
    .prepareQuery(query, undefined, statementNameFor(query.sql), false)
    .execute();
  return (result as { rows: TRow[] }).rows;
}
