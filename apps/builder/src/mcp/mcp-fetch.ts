import { type FetchFunction, outboundFetch } from "../outbound/outbound-fetch.ts";

/**
 * The outbound fetch (SSRF guard) for the MCP SDK. Its answers are undici's own `Response`s, which
 * are not `instanceof` Node's global `Response`; the SDK's OAuth client tests exactly that when it
 * reads a token error (`invalid_grant`), and otherwise treats the error as unreadable and gives up on
 * refreshing. So answers are handed over as global `Response`s (the body stream is passed, not read).
 *
 * @example new StreamableHTTPClientTransport(url, { fetch: mcpFetch({ allowPrivate: false }) });
 */
export function mcpFetch(options: { allowPrivate: boolean }): FetchFunction {
  const fetch = outboundFetch(options);
  return async (input, init) => {
    // Typed as the global Response by outboundFetch, which is exactly what it is not at run time.
    const response: Pick<Response, "body" | "status" | "statusText" | "headers"> = await fetch(input, init);
    if (response instanceof Response) return response;
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
