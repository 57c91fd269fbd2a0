import { z } from "zod";
import type { BuilderConfig } from "../config.ts";

/** A payment service call that failed: `status` is null when no answer came at all. */
export class PaymentServiceError extends Error {
  override name = "PaymentServiceError";
  constructor(
    readonly status: number | null,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const paymentSchema = z.object({
  id: z.string(),
  status: z.string(),
  amount: z.number(),
  currency: z.string(),
  checkout_url: z.string(),
});

const endpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  enabled_events: z.array(z.string()),
  status: z.enum(["enabled", "disabled"]),
  secret: z.string().optional(),
});

/** An event as the events API lists it and a webhook carries it (the seed's envelope). */
export const paymentServiceEventSchema = z.object({
  id: z
    .string()
    .regex(/^evt_[A-Za-z0-9]+$/)
    .max(64),
  type: z.string().max(64),
  created: z.number().int(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export type PaymentServiceEvent = z.infer<typeof paymentServiceEventSchema>;
export type PaymentServicePayment = z.infer<typeof paymentSchema>;
export type PaymentServiceEndpoint = z.infer<typeof endpointSchema>;

const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), has_more: z.boolean() });

export interface PaymentServiceClient {
  createPayment(
    body: {
      amount: string;
      currency: string;
      method: string;
      description: string;
      metadata: Record<string, string>;
      /** Where the hosted checkout sends the customer back. */
      return_url: string;
    },
    idempotencyKey: string,
  ): Promise<PaymentServicePayment>;
  listEvents(query: {
    limit: number;
    startingAfter?: string | undefined;
    endingBefore?: string | undefined;
  }): Promise<{ data: PaymentServiceEvent[]; has_more: boolean }>;
  listWebhookEndpoints(
    startingAfter?: string,
  ): Promise<{ data: PaymentServiceEndpoint[]; has_more: boolean }>;
  /** Undefined when the service has no such endpoint (deleted). */
  getWebhookEndpoint(id: string): Promise<PaymentServiceEndpoint | undefined>;
  createWebhookEndpoint(body: {
    url: string;
    enabled_events: string[];
    description: string;
  }): Promise<PaymentServiceEndpoint>;
  updateWebhookEndpoint(
    id: string,
    body: { url: string; enabled_events: string[]; disabled: boolean },
  ): Promise<PaymentServiceEndpoint>;
  rotateWebhookEndpointSecret(id: string): Promise<PaymentServiceEndpoint>;
  deleteWebhookEndpoint(id: string): Promise<void>;
}

/** How long one call may take; the payment service is on the same network. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * The payment service's API as any merchant uses it: over HTTP with `Authorization: Bearer <secret
 * key>`. Undefined when no key is configured. The key goes in the header only, never in a message.
 *
 * @example const client = paymentServiceClient(config); const payment = await client?.createPayment(body, order.id);
 */
export function paymentServiceClient(
  config: Pick<BuilderConfig, "paymentsUrl" | "paymentsSecretKey">,
): PaymentServiceClient | undefined {
  const secretKey = config.paymentsSecretKey;
  if (!secretKey) return undefined;
  const baseUrl = config.paymentsUrl;

  async function call<T extends z.ZodType>(
    method: string,
    path: string,
    schema: T,
    options: { body?: unknown; idempotencyKey?: string } = {},
  ): Promise<z.infer<T>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${secretKey}`,
      accept: "application/json",
    };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw new PaymentServiceError(
        null,
        "unreachable",
        `The payment service at ${baseUrl} did not answer ${method} ${path}: ${reasonOf(error)}`,
      );
    }
    const text = await response.text();
    const body = parseJson(text);
    if (!response.ok) {
      const error = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).safeParse(body);
      throw new PaymentServiceError(
        response.status,
        error.success ? error.data.error.code : "http_error",
        `The payment service answered ${method} ${path} with ${response.status}: ${
          error.success ? error.data.error.message : text.slice(0, 200)
        }`,
      );
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new PaymentServiceError(
        response.status,
        "invalid_response",
        `The payment service's answer to ${method} ${path} has an unexpected shape.`,
      );
    return parsed.data;
  }

  return {
    createPayment: (body, idempotencyKey) =>
      call("POST", "/v1/payments", paymentSchema, { body, idempotencyKey }),
    listEvents: (query) => {
      const search = new URLSearchParams({ limit: String(query.limit) });
      if (query.startingAfter) search.set("starting_after", query.startingAfter);
      if (query.endingBefore) search.set("ending_before", query.endingBefore);
      return call("GET", `/v1/events?${search}`, pageOf(paymentServiceEventSchema));
    },
    listWebhookEndpoints: (startingAfter) => {
      const search = new URLSearchParams({ limit: "100" });
      if (startingAfter) search.set("starting_after", startingAfter);
      return call("GET", `/v1/webhook_endpoints?${search}`, pageOf(endpointSchema));
    },
    getWebhookEndpoint: async (id) => {
      try {
        return await call("GET", `/v1/webhook_endpoints/${encodeURIComponent(id)}`, endpointSchema);
      } catch (error) {
        if (error instanceof PaymentServiceError && error.status === 404) return undefined;
        throw error;
      }
    },
    createWebhookEndpoint: (body) => call("POST", "/v1/webhook_endpoints", endpointSchema, { body }),
    updateWebhookEndpoint: (id, body) =>
      call("PATCH", `/v1/webhook_endpoints/${encodeURIComponent(id)}`, endpointSchema, { body }),
    rotateWebhookEndpointSecret: (id) =>
      call("POST", `/v1/webhook_endpoints/${encodeURIComponent(id)}/rotate_secret`, endpointSchema),
    deleteWebhookEndpoint: async (id) => {
      await call("DELETE", `/v1/webhook_endpoints/${encodeURIComponent(id)}`, z.unknown());
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return error instanceof Error ? error.message : String(error);
}
