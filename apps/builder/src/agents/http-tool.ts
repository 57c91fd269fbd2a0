import { checkOutboundUrl, type FetchFunction, OutboundUrlError } from "../outbound/outbound-fetch.ts";
import type { AgentTool } from "./contract.ts";

type HttpTool = Extract<AgentTool, { type: "http" }>;

const HTTP_TOOL_TIMEOUT_MS = 15_000;
/** What the model gets back is prompt tokens: a whole web page would crowd out the conversation. */
const MAX_RESPONSE_CHARS = 32_000;

/**
 * Calls an agent's HTTP tool with the model's arguments: `{name}` placeholders in the URL take
 * their argument, the rest go in the query (GET, DELETE) or a JSON body. The URL is checked
 * against the outbound policy on every call because arguments can change where it points.
 *
 * @example const result = await callHttpTool(tool, { city: "Paris" }, { fetch, allowPrivate: false, signal });
 */
export async function callHttpTool(
  tool: HttpTool,
  input: Record<string, unknown>,
  options: { fetch: FetchFunction; allowPrivate: boolean; signal: AbortSignal },
): Promise<{ status: number; body: unknown } | { error: string }> {
  const rest: Record<string, unknown> = { ...input };
  const templated = tool.url.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (_whole, name: string) => {
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(
      value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value),
    );
  });
  let url: URL;
  try {
    url = await checkOutboundUrl(templated, { allowPrivate: options.allowPrivate });
  } catch (error) {
    if (error instanceof OutboundUrlError)
      return { error: `The tool's URL is not allowed: ${error.message}` };
    throw error;
  }
  const hasBody = tool.method !== "GET" && tool.method !== "DELETE";
  if (!hasBody) {
    for (const [key, value] of Object.entries(rest)) {
      url.searchParams.set(key, typeof value === "string" ? value : JSON.stringify(value));
    }
  }
  const headers = new Headers(tool.headers ?? {});
  if (hasBody) headers.set("content-type", "application/json");
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: tool.method,
      headers,
      redirect: "manual",
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(HTTP_TOOL_TIMEOUT_MS)]),
      ...(hasBody ? { body: JSON.stringify(rest) } : {}),
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return { error: `The request failed${code ? ` (${code})` : ""}.` };
  }
  const text = await response.text();
  const clipped =
    text.length > MAX_RESPONSE_CHARS ? `${text.slice(0, MAX_RESPONSE_CHARS)}…[truncated]` : text;
  let body: unknown = clipped;
  if ((response.headers.get("content-type") ?? "").includes("json") && clipped === text) {
    try {
      body = JSON.parse(text);
    } catch {
      // not valid JSON after all: the text is still useful to the model
    }
  }
  return { status: response.status, body };
}
