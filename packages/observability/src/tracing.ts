import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Context, MiddlewareHandler } from "hono";

const TRACER_NAME = "@app/observability";

let isTracing = false;

/**
 * The AI SDK's `experimental_telemetry` setting: its model-call spans (with token usage) when tracing
 * is on. Prompts and answers stay out of the spans: they are the workspaces' data.
 *
 * @example streamText({ model, messages, experimental_telemetry: aiTelemetry() });
 */
export function aiTelemetry(): { isEnabled: boolean; recordInputs: boolean; recordOutputs: boolean } {
  return { isEnabled: isTracing, recordInputs: false, recordOutputs: false };
}

export interface Tracing {
  /** Whether spans are recorded and exported (`OTEL_EXPORTER_OTLP_ENDPOINT` is set). */
  isEnabled: boolean;
  /** Exports the spans still buffered and stops; call when the service stops. */
  shutdown(): Promise<void>;
}

/**
 * Turns OpenTelemetry tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: spans go over OTLP/HTTP
 * (JSON) to `<endpoint>/v1/traces` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), with
 * `OTEL_EXPORTER_OTLP_HEADERS` read by the exporter. Records a span per request (`traceRequests`),
 * one per outbound `fetch` (undici's diagnostics channel: model providers, HTTP nodes, Replicate,
 * webhook deliveries), and whatever runs inside `withSpan`. Without the variable nothing is loaded
 * and every span is the API's no-op.
 *
 * @example const tracing = await startTracing({ service: "builder", endpoint: config.otlpEndpoint });
 */
export async function startTracing(options: {
  service: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`, as the service's configuration read it. */
  endpoint: string | undefined;
  env?: Record<string, string | undefined>;
}): Promise<Tracing> {
  const env = options.env ?? {};
  const endpoint = options.endpoint?.replace(/\/+$/, "");
  if (!endpoint) return { isEnabled: false, shutdown: async () => {} };
  const [
    sdk,
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { AsyncLocalStorageContextManager },
    core,
    undici,
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/instrumentation-undici"),
  ]);
  const exporter = new OTLPTraceExporter({
    url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${endpoint}/v1/traces`,
  });
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? options.service }),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const outbound = new undici.UndiciInstrumentation();
  outbound.setTracerProvider(provider);
  outbound.enable();
  isTracing = true;
  return {
    isEnabled: true,
    shutdown: async () => {
      isTracing = false;
      outbound.disable();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * One server span per request, named by method and matched route (never the raw path: paths carry
 * ids and trigger tokens), with the request id and whatever `attributes` reads from the context
 * (the workspace of the caller). A caller's `traceparent` header continues its trace.
 *
 * @example app.use(traceRequests((c) => ({ "workspace.id": c.get("principal")?.workspaceId })));
 */
export function traceRequests(
  attributes: (c: Context) => Record<string, string | undefined> = () => ({}),
): MiddlewareHandler {
  return async (c, next) => {
    const parent = propagation.extract(context.active(), Object.fromEntries(c.req.raw.headers));
    const tracer = trace.getTracer(TRACER_NAME);
    await tracer.startActiveSpan(
      c.req.method,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": c.req.method } },
      parent,
      async (span) => {
        try {
          await next();
        } finally {
          const status = c.error && c.res.status < 400 ? 500 : c.res.status;
          span.updateName(`${c.req.method} ${c.req.routePath}`);
          span.setAttribute("http.route", c.req.routePath);
          span.setAttribute("http.response.status_code", status);
          const requestId = c.get("requestId" as never) as unknown;
          if (typeof requestId === "string") span.setAttribute("request.id", requestId);
          for (const [key, value] of Object.entries(attributes(c))) if (value) span.setAttribute(key, value);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      },
    );
  };
}

/**
 * Runs `work` in a span of its own (a sandbox run, a workflow run), recording a thrown error.
 *
 * @example await withSpan("sandbox.run", { "sandbox.language": "python" }, () => sandbox.run(request));
 */
export function withSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean | undefined>,
  work: () => Promise<T>,
): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, async (span) => {
    for (const [key, value] of Object.entries(attributes))
      if (value !== undefined) span.setAttribute(key, value);
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes on the span of the current request, if any (a run id once it is known). */
export function annotateSpan(attributes: Record<string, string | undefined>): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  for (const [key, value] of Object.entries(attributes)) if (value) span.setAttribute(key, value);
}
