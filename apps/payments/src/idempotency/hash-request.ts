import { sha256Hex } from "@app/core";

/**
 * What a key's request is compared by: method, path and the body in a canonical form (object keys
 * sorted, no insignificant whitespace, numbers as parsed), so the same JSON sent again by a client
 * that orders its keys or spaces its output differently is the same request, not a reuse of the key.
 * A body that is not JSON is taken as its bytes: it is refused before running and frees the key.
 *
 * @example hashRequest("POST", "/v1/payments", '{ "method": "qris", "amount": 5000 }') === hashRequest("POST", "/v1/payments", '{"amount":5000,"method":"qris"}')
 */
export function hashRequest(method: string, path: string, body: string): string {
  return sha256Hex(`${method} ${path}\n${canonicalBody(body)}`);
}

/**
 * Whether a key's stored hash is this request's. Keys stored before hashes were canonical hold the
 * hash of the raw body: a retry of such a request (for the 24 h its key lives) still matches it.
 *
 * @example isSameRequest(existing.requestHash, "POST", c.req.path, body)
 */
export function isSameRequest(storedHash: string, method: string, path: string, body: string): boolean {
  return (
    storedHash === hashRequest(method, path, body) || storedHash === sha256Hex(`${method} ${path}\n${body}`)
  );
}

function canonicalBody(body: string): string {
  if (body.trim() === "") return "";
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    return body;
  }
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
