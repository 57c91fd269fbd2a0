import { checkWebhookUrl, WebhookUrlError } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { WebhookErrors } from "./errors.ts";

/**
 * Checks a webhook URL for this merchant's mode: https in live mode, and no private targets unless allowed.
 *
 * @example await checkEndpointUrl(deps, scope, "https://example.com/hook");
 */
export async function checkEndpointUrl(deps: Deps, scope: MerchantScope, url: string): Promise<string> {
  try {
    const checked = await checkWebhookUrl(url, {
      allowPrivate: deps.config.allowPrivateWebhooks,
      requireHttps: scope.environment === "live",
    });
    return checked.toString();
  } catch (error) {
    if (error instanceof WebhookUrlError)
      throw WebhookErrors.INVALID_WEBHOOK_URL({ message: error.message, param: "url" });
    throw error;
  }
}
