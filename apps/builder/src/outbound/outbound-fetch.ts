import { commonJsExports } from "@app/core";
import { checkWebhookUrl, guardedLookup, WebhookUrlError } from "@app/webhooks";
import type { Agent } from "undici";

export type FetchFunction = typeof globalThis.fetch;

const MAX_REDIRECTS = 5;

/** A user-controlled URL that we refuse to request (private address, bad scheme, unresolvable). */
export class OutboundUrlError extends Error {
  override name = "OutboundUrlError";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a URL a user gives us to call (a provider base URL, an HTTP node or tool): http(s), no
 * embedded credentials and, unless private targets are allowed, a host that resolves only to public
 * addresses. `outboundFetch` runs it on every request and redirect; call it directly to refuse a URL
 * when it is saved.
 *
 * @example const url = await checkOutboundUrl("https://openrouter.ai/api/v1", { allowPrivate: false });
 */
export async function checkOutboundUrl(raw: string, options: { allowPrivate: boolean }): Promise<URL> {
  try {
    return await checkWebhookUrl(raw, { allowPrivate: options.allowPrivate, requireHttps: false });
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new OutboundUrlError(error.reason, error.message);
    throw error;
  }
}

const dispatchers = new Map<boolean, Agent>();
/**
 * undici is a megabyte of JavaScript that no request needs until one reaches a user's URL: it is
 * loaded then, not at start.
 */
let undici: Promise<typeof import("undici")> | undefined;

/** undici's fetch and the pooled agent of a policy (a new agent per call would lose keep-alive connections). */
async function undiciFor(allowPrivate: boolean) {
  undici ??= import("undici").then(commonJsExports);
  const { Agent, fetch } = await undici;
  let agent = dispatchers.get(allowPrivate);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowPrivate) } });
    dispatchers.set(allowPrivate, agent);
  }
  return { agent, undiciFetch: fetch };
}

/**
 * The fetch for every request whose URL a user controls (HTTP nodes and tools, provider base URLs).
 * Unless private targets are allowed, each URL — and each redirect, followed here by hand — is checked
 * after DNS resolution, and the connection itself re-checks the address it dials, so a host cannot
 * rebind to an internal address between the check and the request.
 *
 * @example const fetch = outboundFetch({ allowPrivate: config.allowPrivateUrls }); await fetch(url, { signal });
 */
export function outboundFetch(options: { allowPrivate: boolean }): FetchFunction {
  return (async (input: Parameters<FetchFunction>[0], init: RequestInit = {}) => {
    let url = input instanceof Request ? input.url : String(input);
    const manual = init.redirect === "manual";
    const { agent, undiciFetch } = await undiciFor(options.allowPrivate);
    for (let hop = 0; ; hop++) {
      await checkOutboundUrl(url, options);
      const response = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: "manual",
        dispatcher: agent,
      });
      const location = response.headers.get("location");
      if (manual || response.status < 300 || response.status >= 400 || !location) {
        return response as unknown as Response;
      }
      if (hop >= MAX_REDIRECTS)
        throw new OutboundUrlError("too_many_redirects", `More than ${MAX_REDIRECTS} redirects.`);
      await response.body?.cancel();
      url = new URL(location, url).toString();
      // A 303, and a 301/302 after POST, continue as GET without a body, as browsers do.
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && init.method === "POST")
      ) {
        init = { ...init, method: "GET", body: null };
      }
    }
  }) as FetchFunction;
}
