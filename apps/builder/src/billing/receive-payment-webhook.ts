import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import { verify } from "@app/webhooks";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { applyPaymentEvent, type EventOutcome } from "./apply-payment-event.ts";
import { BillingErrors } from "./errors.ts";
import { webhookSecrets } from "./payment-link.ts";
import { paymentServiceEventSchema } from "./payment-service-client.ts";

/**
 * A delivery from the payment service: verified the seed's way (`packages/webhooks`' `verify`: a
 * finite `t` within 300 s of our clock, then a constant-time compare of the HMAC over `t.<raw
 * body>`) before the body is even parsed, then applied once by event id. A delivery that does not
 * verify changes nothing and answers 400; before the endpoint is registered, 503 (the service
 * retries, and the reconciler catches up anyway).
 *
 * @example const outcome = await receivePaymentWebhook(deps, { header: c.req.header("x-service-signature"), rawBody: await c.req.text() });
 */
export async function receivePaymentWebhook(
  deps: { db: BuilderDb; clock: Clock; logger: Logger; config: BuilderConfig },
  delivery: { header: string | undefined; rawBody: string },
): Promise<EventOutcome> {
  const secrets = await webhookSecrets(deps).catch((error: unknown) => {
    // The sealed secret does not open (SECRET_KEY changed): the next start issues a new one.
    deps.logger.error(
      { err: error instanceof Error ? error.message : String(error) },
      "payment webhook secret unreadable",
    );
    return [];
  });
  if (secrets.length === 0) throw BillingErrors.WEBHOOK_NOT_READY({ headers: { "Retry-After": "60" } });
  const verification = verify({
    rawBody: delivery.rawBody,
    header: delivery.header,
    secrets,
    now: deps.clock.now(),
  });
  if (!verification.isValid) {
    deps.logger.warn({ reason: verification.reason }, "payment webhook refused");
    throw BillingErrors.INVALID_SIGNATURE({
      message: `The X-Service-Signature header does not verify (${verification.reason}).`,
    });
  }
  const event = paymentServiceEventSchema.safeParse(parseJson(delivery.rawBody));
  if (!event.success) {
    deps.logger.warn("signed payment webhook with an unexpected body");
    throw BillingErrors.INVALID_EVENT();
  }
  const outcome = await applyPaymentEvent(deps, event.data, "webhook");
  deps.logger.info({ event_id: event.data.id, type: event.data.type, outcome }, "payment webhook");
  return outcome;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
