import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { currentLink, storeEndpoint, storeEndpointUrl, webhookSecrets } from "./payment-link.ts";
import {
  type PaymentServiceClient,
  type PaymentServiceEndpoint,
  paymentServiceClient,
} from "./payment-service-client.ts";

/** The events billing acts on; the endpoint subscribes to these only. */
export const BILLING_EVENT_TYPES = [
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.refunded",
];

/** The receiver's path; public (signed deliveries carry no session). */
export const BILLING_WEBHOOK_PATH = "/api/billing/webhook";

const ENDPOINT_DESCRIPTION = "AI builder billing";

export type ConnectOutcome = "kept" | "updated" | "rotated" | "created";

/**
 * Where the payment service delivers: `PUBLIC_URL` when set, else this machine's loopback (the
 * local wiring of `npm start`, where both services share a host).
 *
 * @example billingWebhookUrl(config) // "http://127.0.0.1:3000/api/billing/webhook"
 */
export function billingWebhookUrl(
  config: Pick<BuilderConfig, "hasPublicUrl" | "publicUrl" | "port">,
): string {
  const base = config.hasPublicUrl ? config.publicUrl : `http://127.0.0.1:${config.port}`;
  // Normalised as the payment service stores it, so the URLs it lists compare equal.
  return new URL(`${base}${BILLING_WEBHOOK_PATH}`).toString();
}

/**
 * Makes sure the payment service delivers billing events to this builder, idempotently: the
 * recorded endpoint is kept (its URL and events corrected if they drifted); otherwise an endpoint
 * already registered for this URL is adopted with a fresh secret (the old one is shown only at
 * creation, and keeps signing for 24 h); otherwise one is created. The secret is stored sealed.
 * Two processes racing to create both succeed; the one recorded first stays, the other is deleted.
 *
 * @example const outcome = await connectPaymentService(deps); // "created" on first start, "kept" after
 */
export async function connectPaymentService(deps: {
  db: BuilderDb;
  clock: Clock;
  logger: Logger;
  config: BuilderConfig;
}): Promise<ConnectOutcome> {
  const client = paymentServiceClient(deps.config);
  const link = await currentLink(deps);
  if (!client || !link) throw new Error("PAYMENTS_SECRET_KEY is not set");
  const url = billingWebhookUrl(deps.config);

  if (link.endpointId && link.sealedSecret && (await canOpenSecret(deps))) {
    const recorded = await client.getWebhookEndpoint(link.endpointId);
    if (recorded) {
      if (isCurrent(recorded, url)) return "kept";
      await client.updateWebhookEndpoint(recorded.id, updateOf(url, recorded));
      await storeEndpointUrl(deps, recorded.id, url);
      return "updated";
    }
  }

  const existing = await findEndpointByUrl(client, url);
  if (existing) {
    if (!isCurrent(existing, url)) await client.updateWebhookEndpoint(existing.id, updateOf(url, existing));
    const rotated = await client.rotateWebhookEndpointSecret(existing.id);
    if (!rotated.secret) throw new Error("the payment service answered rotate_secret without a secret");
    await storeEndpoint(deps, { id: existing.id, url, secret: rotated.secret }, link.endpointId);
    return "rotated";
  }

  const created = await client.createWebhookEndpoint({
    url,
    enabled_events: BILLING_EVENT_TYPES,
    description: ENDPOINT_DESCRIPTION,
  });
  if (!created.secret) throw new Error("the payment service created an endpoint without a secret");
  const isStored = await storeEndpoint(
    deps,
    { id: created.id, url, secret: created.secret },
    link.endpointId,
  );
  if (!isStored) {
    // Another process recorded its endpoint first; two endpoints for one URL would deliver everything twice.
    await client.deleteWebhookEndpoint(created.id);
    deps.logger.info({ endpoint_id: created.id }, "payment webhook endpoint registered twice; removed ours");
    return "kept";
  }
  return "created";
}

/** Whether the stored secret still opens (it does not after SECRET_KEY changed): else it is replaced. */
async function canOpenSecret(
  deps: Parameters<typeof webhookSecrets>[0] & { logger: Logger },
): Promise<boolean> {
  try {
    return (await webhookSecrets(deps)).length > 0;
  } catch {
    deps.logger.warn(
      "the stored payment webhook secret does not open (SECRET_KEY changed?); issuing a new one",
    );
    return false;
  }
}

function isCurrent(endpoint: PaymentServiceEndpoint, url: string): boolean {
  return (
    endpoint.url === url &&
    endpoint.status === "enabled" &&
    (endpoint.enabled_events.includes("*") ||
      BILLING_EVENT_TYPES.every((type) => endpoint.enabled_events.includes(type)))
  );
}

function updateOf(url: string, endpoint: PaymentServiceEndpoint) {
  const events = endpoint.enabled_events.includes("*")
    ? ["*"]
    : [...new Set([...endpoint.enabled_events, ...BILLING_EVENT_TYPES])];
  return { url, enabled_events: events, disabled: false };
}

async function findEndpointByUrl(
  client: PaymentServiceClient,
  url: string,
): Promise<PaymentServiceEndpoint | undefined> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await client.listWebhookEndpoints(startingAfter);
    const found = page.data.find((endpoint) => endpoint.url === url);
    if (found) return found;
    const last = page.data.at(-1);
    if (!page.has_more || !last) return undefined;
    startingAfter = last.id;
  }
}
