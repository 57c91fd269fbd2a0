import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { header, queryPairs, type RequestHead } from "./http.ts";
import { S3Error } from "./s3-error.ts";

/** How far `x-amz-date` may be from the fake's clock before S3 answers `RequestTimeTooSkewed`. */
export const MAX_SKEW_MS = 15 * 60_000;

/** What a verified SigV4 `Authorization` header leaves for checking the body's chunk signatures. */
export interface Signing {
  key: Buffer;
  amzDate: string;
  scope: string;
  /** The request's own signature, which the first chunk signature chains from. */
  seedSignature: string;
}

/** The one key pair, region and clock a request is checked against. */
export interface SigningExpectation {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  now: Date;
}

/**
 * Verifies a request's SigV4 `Authorization` header in the order S3 does (key id, scope, date,
 * skew, then the signature), throwing the error S3 answers for the first check that fails.
 * `rawPath` and `rawQuery` are as sent: S3 signs the path without re-encoding it.
 */
export function authenticate(
  req: RequestHead,
  rawPath: string,
  rawQuery: string,
  expected: SigningExpectation,
): Signing {
  const authorization = header(req, "authorization");
  if (!authorization) throw new S3Error(403, "AccessDenied", "Access Denied");
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match)
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  const [, accessKeyId = "", date = "", region = "", service = "", signedHeaders = "", signature = ""] =
    match;
  if (accessKeyId !== expected.accessKeyId)
    throw new S3Error(
      403,
      "InvalidAccessKeyId",
      "The AWS Access Key Id you provided does not exist in our records.",
      {
        AWSAccessKeyId: accessKeyId,
      },
    );
  if (region !== expected.region)
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; the region '${region}' is wrong; expecting '${expected.region}'`,
      { Region: expected.region },
    );
  if (service !== "s3")
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `The authorization header is malformed; incorrect service '${service}'. This endpoint belongs to 's3'.`,
    );
  const amzDate = header(req, "x-amz-date") ?? "";
  const signedAt = parseAmzDate(amzDate);
  if (!signedAt || !amzDate.startsWith(date))
    throw new S3Error(403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
  if (Math.abs(signedAt.getTime() - expected.now.getTime()) > MAX_SKEW_MS)
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
      {
        RequestTime: amzDate,
        ServerTime: expected.now.toISOString(),
      },
    );
  const payloadHash = header(req, "x-amz-content-sha256");
  if (payloadHash === undefined)
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: x-amz-content-sha256",
    );
  const names = signedHeaders.split(";");
  if (!names.includes("host"))
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      "The authorization header is malformed; the host header must be signed.",
    );
  const canonical = canonicalRequest(req, rawPath, rawQuery, names, payloadHash);
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonical)].join("\n");
  const key = signingKey(expected.secretAccessKey, date, region);
  const computed = hmac(key, stringToSign).toString("hex");
  if (!sameHex(computed, signature))
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
      {
        AWSAccessKeyId: accessKeyId,
        StringToSign: stringToSign,
        CanonicalRequest: canonical,
      },
    );
  return { key, amzDate, scope, seedSignature: signature };
}

/** SigV4's canonical request: what the client hashed and signed, rebuilt from what arrived. */
export function canonicalRequest(
  req: RequestHead,
  rawPath: string,
  rawQuery: string,
  signedHeaders: string[],
  payloadHash: string,
): string {
  return [
    req.method ?? "",
    rawPath,
    canonicalQuery(rawQuery),
    ...signedHeaders.map((name) => `${name}:${canonicalHeaderValue(req.headers[name])}`),
    "",
    signedHeaders.join(";"),
    payloadHash,
  ].join("\n");
}

/** The key derived from the secret for one day, region and service: what every signature is an HMAC under. */
export function signingKey(secret: string, date: string, region: string): Buffer {
  const dateKey = hmac(Buffer.from(`AWS4${secret}`), date);
  return hmac(hmac(hmac(dateKey, region), "s3"), "aws4_request");
}

export function hmac(key: Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Compares signatures in constant time, so a timing probe cannot guess one byte by byte. */
export function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** SigV4's canonical query string: every pair URI-encoded (RFC 3986), sorted by name then value. */
function canonicalQuery(raw: string): string {
  return queryPairs(raw)
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/** `encodeURIComponent` leaves `!'()*` alone; RFC 3986, which SigV4 follows, encodes them. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalHeaderValue(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
  return joined.trim().replace(/\s+/g, " ");
}

function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s));
}
