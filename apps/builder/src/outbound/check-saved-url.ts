import { checkOutboundUrl, OutboundUrlError } from "./outbound-fetch.ts";

/**
 * Why a URL saved in an agent's HTTP tool or a workflow's HTTP node would be refused when it is
 * called, or undefined when it would not be (or cannot be known yet). Templates (`{{start.url}}`,
 * `{city}`) stand in for text: a template in the scheme or host is left to the call; one in the
 * path or query is checked as a plain segment. A host that does not resolve now may resolve at call
 * time, so only what the policy refuses for certain is reported.
 *
 * @example const reason = await savedUrlRefusal("http://169.254.169.254/latest", { allowPrivate: false });
 */
export async function savedUrlRefusal(
  raw: string,
  options: { allowPrivate: boolean },
): Promise<string | undefined> {
  const authorityEnd = raw.search(/[/?#]/g) === -1 ? raw.length : indexAfterAuthority(raw);
  if (/[{}]/.test(raw.slice(0, authorityEnd))) return undefined;
  const plain = raw.replace(/\{\{[^{}]*\}\}|\{[A-Za-z_][A-Za-z0-9_]*\}/g, "x");
  try {
    await checkOutboundUrl(plain, options);
    return undefined;
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error;
    return error.reason === "unresolvable" ? undefined : error.message;
  }
}

/** Where the scheme and host end: the first `/`, `?` or `#` after `scheme://`. */
function indexAfterAuthority(raw: string): number {
  const start = raw.indexOf("://");
  const from = start === -1 ? 0 : start + 3;
  const rest = raw.slice(from).search(/[/?#]/);
  return rest === -1 ? raw.length : from + rest;
}
