import { createHmac } from "node:crypto";
import { type Clock, constantTimeEqual, unixSeconds } from "@app/core";

/** Standard Webhooks' tolerance: older or future-dated deliveries are refused as replays. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface WebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Verifies a Standard Webhooks signature as Replicate sends it: `webhook-signature` holds
 * space-separated `v1,<base64>` entries, each an HMAC-SHA256 of `${id}.${timestamp}.${body}` keyed
 * with the base64 part of the `whsec_` secret. Unlike the `replicate` client's `validateWebhook`, it
 * also refuses timestamps more than 5 minutes from the injected clock and compares in constant time.
 *
 * @example isValidWebhook({ id, timestamp, signature }, rawBody, "whsec_…", clock) // true
 */
export function isValidWebhook(headers: WebhookHeaders, body: string, secret: string, clock: Clock): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(unixSeconds(clock.now()) - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.slice(secret.lastIndexOf("_") + 1), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  let isMatch = false;
  // Every entry is compared, so the time taken does not reveal which one matched.
  for (const entry of signature.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version === "v1" && value !== undefined && constantTimeEqual(value, expected)) isMatch = true;
  }
  return isMatch;
}
