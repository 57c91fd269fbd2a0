import { sendJson, startFakeHttp } from "./fake-model.ts";

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

export interface FakeOtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: AnyValue };
type OtlpExport = {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
};

function flatten(attributes: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes) {
    const scalar = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (scalar !== undefined)
      out[key] = typeof scalar === "string" && value.intValue !== undefined ? Number(scalar) : scalar;
  }
  return out;
}

/**
 * An OpenTelemetry collector's OTLP/HTTP trace endpoint (`POST /v1/traces`, JSON encoding) on
 * 127.0.0.1 that keeps every span it receives.
 *
 * @example const otlp = await startFakeOtlpReceiver(); env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp.url;
 */
export async function startFakeOtlpReceiver(): Promise<FakeOtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const http = await startFakeHttp((request, response) => {
    if (request.method !== "POST" || request.path !== "/v1/traces") {
      return sendJson(response, 404, { error: "not found" });
    }
    if (!String(request.headers["content-type"] ?? "").startsWith("application/json")) {
      return sendJson(response, 415, { error: "this receiver speaks OTLP/HTTP JSON only" });
    }
    for (const resourceSpans of (request.body as OtlpExport).resourceSpans ?? []) {
      const service = String(flatten(resourceSpans.resource?.attributes)["service.name"] ?? "");
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
          });
        }
      }
    }
    sendJson(response, 200, { partialSuccess: {} });
  });
  return { url: http.url, spans, close: () => http.close() };
}
