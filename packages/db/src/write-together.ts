import { is, Param, Placeholder, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { statementNameFor } from "./prepared.ts";

type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * Runs several writes as one statement: each becomes a data-modifying CTE, so they commit together
 * (one statement is its own transaction) in one round trip instead of a BEGIN, one round trip per
 * write and a COMMIT. Every write sees the database as it was before the statement, so none may
 * read what another writes; foreign keys are checked at the end, as in a transaction.
 *
 * With `bound`, writes whose values all went through its `Bindings` (`bindings.row`,
 * `bindings.value`) are built into SQL once per shape and run as a named prepared statement after:
 * building a statement of a few writes costs drizzle more than running it (0.2–0.4 ms for a chat
 * turn's). `bound.name` names the code path, whose tables must be the same on every call; what
 * else varies (rows, columns, updates) is in the bindings' shape.
 *
 * @example await writeTogether(db, [db.insert(messages).values(rows), db.update(conversations).set({ updatedAt }).where(eq(conversations.id, id))]);
 */
export async function writeTogether(
  db: AnyDb,
  writes: readonly SQLWrapper[],
  bound?: { name: string; bindings: Bindings },
): Promise<void> {
  if (writes.length === 0) return;
  if (!bound) {
    await db.execute(statementOf(writes));
    return;
  }
  const key = `${bound.name}:${bound.bindings.shape}`;
  const built = builtStatements(db);
  let prepared = built.get(key);
  if (!prepared) {
    const query = dialect.sqlToQuery(statementOf(writes));
    if (!query.params.every(isPlaceholder)) {
      // Kept, such a value would be replayed into every later call's statement.
      throw new Error(`writeTogether "${bound.name}": a value did not go through its bindings`);
    }
    prepared = db._.session.prepareQuery(query, undefined, statementNameFor(query.sql), false);
    // Shapes come from code paths and their row counts; the bound keeps a stray one from growing it.
    if (built.size >= MAX_SHAPES) built.delete(built.keys().next().value as string);
    built.set(key, prepared);
  }
  await prepared.execute(bound.bindings.values);
}

function statementOf(writes: readonly SQLWrapper[]): SQL {
  const ctes = writes.map((write, i) => sql`${sql.raw(`write_${i}`)} as (${write.getSQL()})`);
  return sql`with ${sql.join(ctes, sql`, `)} select 1`;
}

const dialect = new PgDialect();
const MAX_SHAPES = 256;
type Prepared = ReturnType<AnyDb["_"]["session"]["prepareQuery"]>;
const statementsPerDb = new WeakMap<object, Map<string, Prepared>>();

function builtStatements(db: AnyDb): Map<string, Prepared> {
  let built = statementsPerDb.get(db);
  if (!built) {
    built = new Map();
    statementsPerDb.set(db, built);
  }
  return built;
}

function isPlaceholder(param: unknown): boolean {
  return is(param, Placeholder) || (is(param, Param) && is(param.value, Placeholder));
}

/** How a write takes its values: as they are, or as placeholders of `Bindings`. */
export interface Binder {
  /** The row to insert; keys whose value is undefined stay out (their column's default). */
  row<T extends object>(row: T): { [K in keyof T]: T[K] | Placeholder };
  value<T>(value: T): T | Placeholder;
}

/** Values written as they are, for `writeTogether` without bindings. */
export const inline: Binder = {
  row: (row) => row,
  value: (value) => value,
};

/**
 * The values of one call of a bound `writeTogether`: each becomes a placeholder, and the shape (the
 * columns of each row and the single values, in order) says which statement they fill.
 *
 * @example const bindings = new Bindings(); await writeTogether(db, [db.insert(notes).values(bindings.row(note))], { name: "add_note", bindings });
 */
export class Bindings implements Binder {
  readonly values: Record<string, unknown> = {};
  #shape: string[] = [];
  #count = 0;

  row<T extends object>(row: T): { [K in keyof T]: T[K] | Placeholder } {
    const bound: Record<string, unknown> = {};
    const columns: string[] = [];
    for (const [column, value] of Object.entries(row)) {
      if (value === undefined) continue;
      bound[column] = this.#placeholder(value);
      columns.push(column);
    }
    this.#shape.push(`(${columns.join(",")})`);
    return bound as { [K in keyof T]: T[K] | Placeholder };
  }

  value<T>(value: T): T | Placeholder {
    this.#shape.push("$");
    return this.#placeholder(value);
  }

  get shape(): string {
    return this.#shape.join("");
  }

  #placeholder(value: unknown): Placeholder {
    const name = `v${this.#count++}`;
    this.values[name] = value;
    return sql.placeholder(name);
  }
}
