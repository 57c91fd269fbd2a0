import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Ranges a webhook must never reach unless private targets are allowed: a merchant-supplied URL
 * would otherwise let anyone probe our network or the cloud metadata service.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, includes 169.254.169.254 (metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes broadcast
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 can reach any IPv4, private ones included
  ["2001:db8::", 32], // documentation
  ["fd00:ec2::254", 128], // AWS metadata over IPv6
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether an IP address is private, loopback, link-local, unique-local, CGNAT, multicast,
 * metadata or otherwise not a public unicast address. IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is
 * judged by its IPv4 part.
 *
 * @example isBlockedAddress("169.254.169.254") // true
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], "ipv4");
    return blocked.check(address, "ipv6");
  }
  return true;
}

export type UrlCheckFailure = "invalid_url" | "https_required" | "private_address" | "unresolvable";

export class WebhookUrlError extends Error {
  override name = "WebhookUrlError";
  constructor(
    readonly reason: UrlCheckFailure,
    message: string,
  ) {
    super(message);
  }
}

export type Resolver = (hostname: string) => Promise<string[]>;

/** All addresses a hostname resolves to (A and AAAA). */
export const resolveAll: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });

/**
 * Checks a webhook URL before it is saved: http(s) only (https when `requireHttps`), no
 * credentials, and — unless `allowPrivate` — every address the host resolves to is public.
 * Delivery checks again at connect time (see `guardedLookup`), because DNS can change.
 *
 * @example await checkWebhookUrl("https://example.com/hook", { allowPrivate: false, requireHttps: true });
 */
export async function checkWebhookUrl(
  raw: string,
  options: { allowPrivate: boolean; requireHttps: boolean; resolve?: Resolver },
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError("invalid_url", "The URL is not a valid absolute URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new WebhookUrlError("invalid_url", "The URL must use http or https.");
  }
  if (options.requireHttps && url.protocol !== "https:") {
    throw new WebhookUrlError("https_required", "Live-mode webhook URLs must use https.");
  }
  if (url.username || url.password) {
    throw new WebhookUrlError("invalid_url", "The URL must not carry credentials.");
  }
  if (options.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? resolveAll)(host);
    } catch {
      throw new WebhookUrlError("unresolvable", `The host ${host} does not resolve.`);
    }
  }
  if (addresses.length === 0 || addresses.some(isBlockedAddress)) {
    throw new WebhookUrlError(
      "private_address",
      "The URL points at a private, loopback or reserved address.",
    );
  }
  return url;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http/net that refuses blocked addresses at connect time, so a host that
 * passed the check at registration cannot rebind to an internal address later.
 *
 * @example http.request(url, { lookup: guardedLookup(false) })
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      const list = Array.isArray(addresses) ? addresses : [];
      if (!allowPrivate && (list.length === 0 || list.some((entry) => isBlockedAddress(entry.address)))) {
        const refused: NodeJS.ErrnoException = new Error(
          `refused to connect to a private address for ${hostname}`,
        );
        refused.code = "EPRIVATEADDRESS";
        return callback(refused, []);
      }
      const wantsAll = "all" in options && options.all === true;
      if (wantsAll) return callback(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), []);
      return callback(null, first.address, first.family);
    });
  };
}
