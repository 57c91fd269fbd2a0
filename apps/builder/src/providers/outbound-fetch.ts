import { checkWebhookUrl, guardedLookup, WebhookUrlError } from "@app/webhooks";
import { Agent, fetch as undiciFetch } from "undici";

export type FetchFunction = typeof globalThis.fetch;

/** Why a user-supplied URL was refused, in words for the answer. */
export class OutboundUrlError extends Error {
  override name = "OutboundUrlError";
}

/**
 * Checks a URL a user gives us to call (a provider base URL, an HTTP tool): http(s), no
 * embedded credentials and, unless private targets are allowed, a host that resolves only to
 * public addresses. Needed before every call to an IP literal too, because connections to an
 * IP skip the DNS lookup that `outboundFetch` guards.
 *
 * @example const url = await checkOutboundUrl("https://openrouter.ai/api/v1", { allowPrivate: false });
 */
export async function checkOutboundUrl(raw: string, options: { allowPrivate: boolean }): Promise<URL> {
  try {
    return await checkWebhookUrl(raw, { allowPrivate: options.allowPrivate, requireHttps: false });
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new OutboundUrlError(error.message);
    throw error;
  }
}

let guarded: FetchFunction | undefined;

/**
 * The fetch used for user-supplied URLs (provider base URLs, HTTP tools). The address is checked when the
 * connection is made (after DNS), so a host that was public when saved cannot rebind to an
 * internal address later. With private targets allowed it is the plain global fetch.
 *
 * @example createOpenAI({ baseURL, apiKey, fetch: outboundFetch({ allowPrivate: false }) })
 */
export function outboundFetch(options: { allowPrivate: boolean }): FetchFunction {
  if (options.allowPrivate) return globalThis.fetch;
  if (!guarded) {
    // One pooled agent for the process: a new one per call would lose keep-alive connections.
    const dispatcher = new Agent({ connect: { lookup: guardedLookup(false) } });
    guarded = ((input: Parameters<FetchFunction>[0], init?: RequestInit) =>
      undiciFetch(input instanceof Request ? input.url : input, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher,
      })) as unknown as FetchFunction;
  }
  return guarded;
}
