import { createHash } from "node:crypto";
import {
  type PGlite,
  parse,
  protocol,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";

/**
 * How this package runs statements, in one place. Callers see two functions:
 *
 * - `queryRows(db, sql)` answers the rows of hand-written SQL; with `{ isPrepared: true }` it runs
 *   as a named statement, which PostgreSQL parses and plans once per connection.
 * - `preparedQuery(build)` builds a drizzle query once per database handle and prepares it under a
 *   name derived from its text, for hot queries with placeholders.
 *
 * On PGlite every text is a named statement already (`withNamedStatements`, the client layer
 * `openDatabase` puts under drizzle), so both only save work on PostgreSQL and in drizzle.
 */

type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

const dialect = new PgDialect();
const statementNames = new Map<string, string>();

/**
 * The rows of hand-written SQL, for what drizzle has no words for (pgvector operators, CTEs that
 * write, advisory locks). Both drivers answer `{ rows }`; the driver-neutral type leaves it unknown.
 * `isPrepared` runs the text as a named statement: worth it when parsing and planning cost more
 * than running (long CTEs on a hot path). Keep a prepared text fixed and pass values as
 * parameters: each distinct text stays prepared on each connection.
 *
 * @example
 * const rows = await queryRows<{ id: string }>(db, sql`select id from events where id > ${after}`);
 * const due = await queryRows<{ id: string }>(db, claimStatement, { isPrepared: true });
 */
export async function queryRows<Row>(
  db: AnyDb,
  statement: SQL,
  options: { isPrepared?: boolean } = {},
): Promise<Row[]> {
  if (!options.isPrepared) return ((await db.execute(statement)) as unknown as { rows: Row[] }).rows;
  const query = dialect.sqlToQuery(statement);
  const result = await db._.session
    .prepareQuery(query, undefined, statementNameFor(query.sql), false)
    .execute();
  return (result as { rows: Row[] }).rows;
}

/**
 * A drizzle query built once per database handle and prepared under a name derived from its
 * text. Drizzle otherwise rebuilds the SQL text of a query on every call (its cost is measured
 * in docs/architecture.md); the name lets PostgreSQL skip parsing it again on each connection, and since it
 * comes from the text, two queries can never claim one name.
 *
 * @example
 * const agentById = preparedQuery((db: BuilderDb) =>
 *   db.select().from(agents).where(eq(agents.id, sql.placeholder("id"))));
 * const [row] = await agentById(db).execute({ id });
 */
export function preparedQuery<TDb extends object, TPrepared>(
  build: (db: TDb) => { toSQL(): { sql: string }; prepare(name: string): TPrepared },
): (db: TDb) => TPrepared {
  const built = new WeakMap<TDb, TPrepared>();
  return (db) => {
    let prepared = built.get(db);
    if (prepared === undefined) {
      const query = build(db);
      prepared = query.prepare(statementNameFor(query.toSQL().sql));
      built.set(db, prepared);
    }
    return prepared;
  };
}

/** The name a text is prepared under on PostgreSQL: one name per distinct text, on every connection. */
function statementNameFor(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `stmt_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Statements kept per database; the least recently used is closed beyond this. */
export const STATEMENT_CACHE_SIZE = 256;

/** PostgreSQL's `invalid_sql_statement_name`: the named statement is gone (DEALLOCATE ALL). */
const STATEMENT_MISSING = "26000";

const { serialize } = protocol;

interface NamedStatement {
  name: string;
  /** The parameters' type oids, as PostgreSQL inferred them when it parsed the text. */
  parameterTypes: number[];
}

/**
 * PGlite as drizzle uses it (`query`, `transaction`), with each SQL text parsed and planned once.
 * PGlite's own `query` sends Parse, Describe, Bind, Describe, Execute and Sync as six calls into
 * the engine on every call, and PostgreSQL parses and plans the text again each time: for the
 * statements on a chat turn's path that is two thirds of their cost. Here the first use of a text
 * prepares it as a named statement (Parse and Describe, once), and every use after is one call:
 * Bind, Describe, Execute and Sync. PostgreSQL keeps the plan, re-planning by itself when a table
 * the statement reads changes. Texts with options this path does not handle (COPY's `blob`,
 * `onNotice`, fixed `paramTypes`) go to PGlite's `query` unchanged. Everything else is PGlite's own.
 * Each statement or transaction first gives the event loop a turn (`yieldToEventLoop`).
 *
 * It leans on PGlite's mutexes (`_runExclusiveTransaction`, `_runExclusiveQuery`, declared in its
 * typings for its subclasses) so a query never runs between the statements of another caller's
 * transaction; `statements.test.ts` pins that down for upgrades. A PGlite without them gets its
 * public `query` unchanged (`hasExclusiveRunners`).
 *
 * @example const db = drizzle({ client: withNamedStatements(await PGlite.create(dir)) });
 */
export function withNamedStatements(pg: PGlite, cacheSize = STATEMENT_CACHE_SIZE): PGlite {
  // A PGlite release without these internals still works, only slower: its public `query` as is.
  if (!hasExclusiveRunners(pg)) return pg;
  const statements = new Map<string, NamedStatement>();
  let nextName = 0;

  const prepare = async (text: string): Promise<NamedStatement> => {
    const cached = statements.get(text);
    if (cached) {
      // Map order is the eviction order: a hit moves to the back.
      statements.delete(text);
      statements.set(text, cached);
      return cached;
    }
    const name = `pglite_statement_${nextName++}`;
    const closes: Uint8Array[] = [];
    while (statements.size >= cacheSize) {
      const [oldest, evicted] = statements.entries().next().value as [string, NamedStatement];
      statements.delete(oldest);
      closes.push(serialize.close({ type: "S", name: evicted.name }));
    }
    const { messages } = await pg.execProtocol(
      concat([
        ...closes,
        serialize.parse({ name, text }),
        serialize.describe({ type: "S", name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(text, statement);
    return statement;
  };

  const layered = new WeakMap<object, Record<number | string, unknown>>();
  const layeredParsers = (own: NonNullable<QueryOptions["parsers"]>) => {
    let parsers = layered.get(own);
    if (!parsers) {
      parsers = Object.assign(Object.create(pg.parsers) as Record<number | string, unknown>, own);
      layered.set(own, parsers);
    }
    return parsers as typeof pg.parsers;
  };

  const execute = async <T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    isOwnTransaction: boolean,
  ): Promise<Results<T>> => {
    const run = async () => {
      const statement = await prepare(text);
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const type = statement.parameterTypes[i] ?? 0;
        const serializer = options?.serializers?.[type] ?? pg.serializers[type];
        return serializer ? serializer(value) : String(value);
      });
      const { messages } = await pg.execProtocol(
        concat([
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: "P" }),
          serialize.execute({}),
          serialize.sync(),
        ]),
        { syncToFs: false },
      );
      // PGlite would copy its 300-odd parsers under the caller's on every call (see docs/architecture.md); layered on
      // them instead, PGlite's own stay live (it adds array types later) and nothing is copied.
      const parsers = options?.parsers ? layeredParsers(options.parsers) : pg.parsers;
      return parse.parseResults(messages, parsers, {
        rowMode: options?.rowMode ?? "object",
      })[0] as Results<T>;
    };
    return pg._runExclusiveQuery(async () => {
      let results: Results<T>;
      try {
        results = await run();
      } catch (error) {
        if (!isDatabaseError(error, STATEMENT_MISSING)) throw withQuery(error, text, params, options);
        // Someone ran DEALLOCATE: forget every statement and prepare this one again.
        statements.clear();
        results = await run().catch((again: unknown) => {
          throw withQuery(again, text, params, options);
        });
      }
      // What PGlite's own query does outside a transaction (a no-op on the Node file system).
      if (isOwnTransaction) await pg.syncToFs();
      return results;
    });
  };

  const handles = (options: QueryOptions | undefined) =>
    !options?.blob && !options?.onNotice && !options?.paramTypes;

  const query = async <T>(text: string, params: unknown[] = [], options?: QueryOptions) => {
    if (!handles(options)) return pg.query<T>(text, params, options);
    await yieldToEventLoop();
    await pg._checkReady();
    return pg._runExclusiveTransaction(() => execute<T>(text, params, options, true));
  };

  const transaction = async <T>(callback: (tx: Transaction) => Promise<T>) => {
    await yieldToEventLoop();
    return pg.transaction((tx) =>
      callback(
        new Proxy(tx, {
          get(target, property) {
            if (property !== "query") return Reflect.get(target, property);
            return <R>(text: string, params: unknown[] = [], options?: QueryOptions) => {
              if (!handles(options) || target.closed) return target.query<R>(text, params, options);
              // The transaction holds PGlite's transaction mutex already.
              return execute<R>(text, params, options, false);
            };
          },
        }),
      ),
    );
  };

  return new Proxy(pg, {
    get(target, property) {
      if (property === "query") return query;
      if (property === "transaction") return transaction;
      const value: unknown = Reflect.get(target, property, target);
      // PGlite's methods read private fields, so they must run on the instance, not the proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * PGlite answers in-process, its engine running synchronously: a chain of statements resolves in
 * promise callbacks alone and never lets the event loop poll its sockets. A service on PGlite would
 * then read no other request (nor answer `/healthz`) until one request's statements were all done:
 * requests ran one after another, where on PostgreSQL each statement's round trip lets the others in
 * (so a repeat of an `Idempotency-Key` arrived while the first ran is a 409 there, and was a replay
 * here). One turn of the event loop before each statement or transaction interleaves requests the
 * same way; inside a transaction nothing yields, as its statements hold PGlite's one connection.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether this PGlite has the internals this path leans on (declared for subclasses, not public API). */
export function hasExclusiveRunners(pg: PGlite): boolean {
  const internals = pg as unknown as Record<string, unknown>;
  return ["_runExclusiveQuery", "_runExclusiveTransaction", "_checkReady", "execProtocol"].every(
    (name) => typeof internals[name] === "function",
  );
}

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

function isDatabaseError(error: unknown, code: string): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === code;
}

/** The query and its parameters on the error, as PGlite's own `query` adds them. */
function withQuery(error: unknown, text: string, params: unknown[], options: QueryOptions | undefined) {
  if (error instanceof Error) Object.assign(error, { query: text, params, queryOptions: options });
  return error;
}
