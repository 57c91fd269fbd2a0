import { createHmac, timingSafeEqual } from "node:crypto";

/** The seed's replay window: a signature whose `t` is further than this from now is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * The lowercase hex HMAC-SHA256 of `<t>.<body>`, keyed with the whole secret string as issued
 * (`whsec_…` as UTF-8 bytes, the way Stripe does it; not base64-decoded as Standard Webhooks does).
 *
 * @example sign("whsec_abc", '{"id":"evt_1"}', 1767225600) // "5f2b…"
 */
export function sign(secret: string, body: string | Uint8Array, t: number): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${t}.`);
  hmac.update(body);
  return hmac.digest("hex");
}

/**
 * The `X-Service-Signature` value: one `t=` and one `v1=` per secret (two during a rotation).
 *
 * @example signatureHeader(["whsec_new", "whsec_old"], body, 1767225600) // "t=1767225600,v1=…,v1=…"
 */
export function signatureHeader(secrets: readonly string[], body: string | Uint8Array, t: number): string {
  return [`t=${t}`, ...secrets.map((secret) => `v1=${sign(secret, body, t)}`)].join(",");
}

export type VerifyFailure =
  | "missing_header"
  | "missing_timestamp"
  | "invalid_timestamp"
  | "timestamp_out_of_tolerance"
  | "missing_signature"
  | "signature_mismatch";

export type VerifyResult = { isValid: true; timestamp: number } | { isValid: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** The body exactly as received: never a parsed and re-serialised object. */
  rawBody: string | Uint8Array;
  /** The `X-Service-Signature` header value. */
  header: string | null | undefined;
  /** One secret, or several while a rotation is under way: any match is accepted. */
  secret?: string;
  secrets?: readonly string[];
  toleranceSeconds?: number;
  /** The receiver's current time (a Date or Unix seconds); defaults to the wall clock. */
  now?: Date | number;
}

/**
 * Checks a delivery the way the seed's six steps say: `t` must be a finite number within the
 * tolerance (in both directions), and some `v1=` must equal the expected HMAC, compared in
 * constant time after an equal-length check. Unknown schemes (`v0=`, …) are ignored.
 *
 * @example
 * const result = verify({ rawBody, header: req.headers["x-service-signature"], secret });
 * if (!result.isValid) return res.status(400).end(result.reason);
 */
export function verify(options: VerifyOptions): VerifyResult {
  const secrets = [...(options.secrets ?? []), ...(options.secret === undefined ? [] : [options.secret])];
  if (secrets.length === 0) throw new TypeError("verify needs `secret` or `secrets`");
  if (!options.header) return { isValid: false, reason: "missing_header" };

  let timestampText: string | undefined;
  const received: string[] = [];
  for (const part of options.header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    // A second `t=` is ambiguous (which one was signed?), so it invalidates the header.
    if (key === "t") {
      if (timestampText !== undefined) return { isValid: false, reason: "invalid_timestamp" };
      timestampText = value;
    } else if (key === "v1") received.push(value);
  }
  if (timestampText === undefined || timestampText === "")
    return { isValid: false, reason: "missing_timestamp" };
  // Number() alone would accept "1e9", " 12", "0x10" or "Infinity"; only plain digits are a Unix time.
  if (!/^-?\d{1,15}$/.test(timestampText)) return { isValid: false, reason: "invalid_timestamp" };
  const t = Number(timestampText);
  if (!Number.isFinite(t)) return { isValid: false, reason: "invalid_timestamp" };

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(
    options.now === undefined
      ? Date.now() / 1000
      : typeof options.now === "number"
        ? options.now
        : options.now.getTime() / 1000,
  );
  if (Math.abs(nowSeconds - t) > tolerance) return { isValid: false, reason: "timestamp_out_of_tolerance" };
  if (received.length === 0) return { isValid: false, reason: "missing_signature" };

  for (const secret of secrets) {
    const expected = Buffer.from(sign(secret, options.rawBody, t), "utf8");
    for (const candidate of received) {
      const actual = Buffer.from(candidate, "utf8");
      // timingSafeEqual throws on unequal lengths; the length of a hex digest is no secret.
      if (actual.length === expected.length && timingSafeEqual(actual, expected)) {
        return { isValid: true, timestamp: t };
      }
    }
  }
  return { isValid: false, reason: "signature_mismatch" };
}
