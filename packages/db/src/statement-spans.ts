import { type Attributes, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

const TRACER_NAME = "@app/db";
/** Statement texts are parameterised (values travel apart), but a generated one can be long. */
const MAX_TEXT = 2_000;

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * A database client (PGlite, a node-postgres pool or pooled client) whose statements are OpenTelemetry
 * client spans — `SELECT agents`, with `db.system.name`, `db.namespace`, `db.query.text`,
 * `db.operation.name`, the rows returned and the error code — children of whatever span is active.
 * Only statements inside a traced operation (a request, a workflow run, a delivery) get one: the
 * workers' idle polls would otherwise be a root trace each, every second. With tracing off no span
 * is ever active, so a statement pays one lookup.
 * Transactions' statements (PGlite's `transaction`, a pool's `connect`) are wrapped the same way.
 *
 * @example const client = withStatementSpans(pool, "payments"); drizzle({ client });
 */
export function withStatementSpans<T extends object>(client: T, namespace: string): T {
  const attributes: Attributes = { "db.system.name": "postgresql", "db.namespace": namespace };
  return new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // Methods read private fields (PGlite's, pg's): they run on the client, not on the proxy.
      const method = value.bind(target) as Query;
      if (property === "query")
        return (...args: unknown[]) => traced(attributes, args[0], () => method(...args));
      if (property === "transaction")
        return (callback: (tx: object) => Promise<unknown>, ...rest: unknown[]) =>
          method((tx: object) => callback(withStatementSpans(tx, namespace)), ...rest);
      if (property === "connect")
        return (...args: unknown[]) => {
          // The callback form is node-postgres's old API; drizzle and our code use the promise.
          if (args.length > 0) return method(...args);
          return method().then((connection) => withStatementSpans(connection as object, namespace));
        };
      return method;
    },
  });
}

function traced(attributes: Attributes, query: unknown, run: () => Promise<unknown>): Promise<unknown> {
  if (!trace.getActiveSpan()?.isRecording()) return run();
  const text = typeof query === "string" ? query : ((query as { text?: unknown } | undefined)?.text ?? "");
  const sql = String(text);
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "QUERY";
  const table = /\b(?:from|into|update|join)\s+"?([\w.]+)"?/i.exec(sql)?.[1];
  const tracer = trace.getTracer(TRACER_NAME);
  return tracer.startActiveSpan(
    table ? `${operation} ${table}` : operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        ...attributes,
        "db.operation.name": operation,
        ...(table ? { "db.collection.name": table } : {}),
        "db.query.text": sql.length > MAX_TEXT ? `${sql.slice(0, MAX_TEXT)}…` : sql,
      },
    },
    async (span) => {
      try {
        const result = (await run()) as { rows?: unknown[]; rowCount?: number | null } | undefined;
        const rows = result?.rows?.length ?? result?.rowCount;
        if (typeof rows === "number") span.setAttribute("db.response.returned_rows", rows);
        return result;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (typeof code === "string") span.setAttribute("db.response.status_code", code);
        span.setAttribute("error.type", typeof code === "string" ? code : (error as Error).name);
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
