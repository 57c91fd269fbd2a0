import { checkWebhookUrl, WebhookUrlError } from "@app/webhooks";
import type { BuilderConfig } from "../config.ts";
import { WebhookErrors } from "./errors.ts";

/**
 * Checks a webhook URL before it is saved: http(s) without credentials, https unless
 * `ALLOW_PRIVATE_URLS=1` (local development), and no private, loopback, link-local or metadata
 * target unless allowed. The engine checks the address again at each connection (DNS rebinding).
 * Answers the normalised URL; throws a 422 naming `url`.
 *
 * @example const url = await checkWebhookTarget(deps.config, "https://example.com/hooks");
 */
export async function checkWebhookTarget(
  config: Pick<BuilderConfig, "allowPrivateUrls">,
  url: string,
): Promise<string> {
  try {
    const checked = await checkWebhookUrl(url, {
      allowPrivate: config.allowPrivateUrls,
      // Deliveries carry workflow outputs and documents' metadata: never in clear outside development.
      requireHttps: !config.allowPrivateUrls,
    });
    return checked.toString();
  } catch (error) {
    if (!(error instanceof WebhookUrlError)) throw error;
    const message =
      error.reason === "https_required"
        ? "Webhook URLs must use https (http is accepted only with ALLOW_PRIVATE_URLS=1)."
        : error.reason === "private_address"
          ? "The URL points at a private, loopback or reserved address (allowed only with ALLOW_PRIVATE_URLS=1)."
          : error.message;
    throw WebhookErrors.INVALID_WEBHOOK_URL({ message, param: "url" });
  }
}
