import { describe, expect, it } from "vitest";
import type { RequestHead } from "./http.ts";
import { authenticate, canonicalRequest, type SigningExpectation } from "./sigv4.ts";

// AWS's worked examples of header-signed requests (AmazonS3/latest/API/sig-v4-header-based-auth.html),
// signed with the documentation's key pair on 2013-05-24: an independent oracle for the whole check.
const EXPECTED: SigningExpectation = {
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
  now: new Date("2013-05-24T00:00:00Z"),
};
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const CREDENTIAL = "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request";

/** "Example: GET Object": the first ten bytes of test.txt. */
const getObject: RequestHead = {
  method: "GET",
  headers: {
    host: "examplebucket.s3.amazonaws.com",
    range: "bytes=0-9",
    "x-amz-content-sha256": EMPTY_SHA256,
    "x-amz-date": "20130524T000000Z",
    authorization: `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41`,
  },
};

/** "Example: GET Bucket (List Objects)": a query string to canonicalise. */
const listObjects: RequestHead = {
  method: "GET",
  headers: {
    host: "examplebucket.s3.amazonaws.com",
    "x-amz-content-sha256": EMPTY_SHA256,
    "x-amz-date": "20130524T000000Z",
    authorization: `AWS4-HMAC-SHA256 ${CREDENTIAL},SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7`,
  },
};

const withHeaders = (req: RequestHead, headers: Record<string, string>): RequestHead => ({
  ...req,
  headers: { ...req.headers, ...headers },
});

/** Checks AWS's GET Object example (or `req`, `path`) against the expectation with `change` applied. */
const checkGetObject =
  (change: Partial<SigningExpectation> = {}, req = getObject, path = "/test.txt") =>
  () =>
    authenticate(req, path, "", { ...EXPECTED, ...change });

/** What `toThrow` should see: an S3Error with this status and code, and these `extra` fields. */
const s3Error = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  expect.objectContaining({ status, code, extra: expect.objectContaining(extra) });

describe("authenticate (SigV4 header signatures)", () => {
  it("rebuilds AWS's documented canonical request for the GET Object example", () => {
    const names = ["host", "range", "x-amz-content-sha256", "x-amz-date"];
    expect(canonicalRequest(getObject, "/test.txt", "", names, EMPTY_SHA256)).toBe(
      [
        "GET",
        "/test.txt",
        "",
        "host:examplebucket.s3.amazonaws.com",
        "range:bytes=0-9",
        `x-amz-content-sha256:${EMPTY_SHA256}`,
        "x-amz-date:20130524T000000Z",
        "",
        "host;range;x-amz-content-sha256;x-amz-date",
        EMPTY_SHA256,
      ].join("\n"),
    );
  });

  it("accepts AWS's correctly signed examples and answers what chunk signatures chain from", () => {
    expect(checkGetObject()()).toEqual({
      key: expect.any(Buffer),
      amzDate: "20130524T000000Z",
      scope: "20130524/us-east-1/s3/aws4_request",
      seedSignature: "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    });
    // The query arrives in any order and is signed sorted.
    expect(() => authenticate(listObjects, "/", "prefix=J&max-keys=2", EXPECTED)).not.toThrow();
  });

  it("accepts headers the client did not sign, changed or added", () => {
    const extra = withHeaders(getObject, { "user-agent": "anything", "x-amz-meta-note": "unsigned" });
    expect(checkGetObject({}, extra)).not.toThrow();
  });

  it("refuses a signature made with another secret: 403 SignatureDoesNotMatch", () => {
    // S3 names what it signed, so a client can find where it differs.
    expect(checkGetObject({ secretAccessKey: "not-the-secret" })).toThrow(
      s3Error(403, "SignatureDoesNotMatch", { CanonicalRequest: expect.stringContaining("range:bytes=0-9") }),
    );
  });

  it("refuses a request whose signed header, path or query was changed after signing: 403 SignatureDoesNotMatch", () => {
    const tampered = withHeaders(getObject, { range: "bytes=0-99" });
    expect(checkGetObject({}, tampered)).toThrow(s3Error(403, "SignatureDoesNotMatch"));
    expect(checkGetObject({}, getObject, "/other.txt")).toThrow(s3Error(403, "SignatureDoesNotMatch"));
    expect(() => authenticate(listObjects, "/", "max-keys=3&prefix=J", EXPECTED)).toThrow(
      s3Error(403, "SignatureDoesNotMatch"),
    );
  });

  it("accepts a signature up to fifteen minutes old and refuses one older: 403 RequestTimeTooSkewed", () => {
    const at = (iso: string) => checkGetObject({ now: new Date(iso) });
    expect(at("2013-05-24T00:15:00Z")).not.toThrow();
    expect(at("2013-05-24T00:15:01Z")).toThrow(
      s3Error(403, "RequestTimeTooSkewed", {
        RequestTime: "20130524T000000Z",
        ServerTime: "2013-05-24T00:15:01.000Z",
      }),
    );
    // A clock behind the client's is as far off as one ahead.
    expect(at("2013-05-23T23:44:59Z")).toThrow(s3Error(403, "RequestTimeTooSkewed"));
  });

  it("refuses an unknown key id with 403 InvalidAccessKeyId and no signature with 403 AccessDenied", () => {
    expect(checkGetObject({ accessKeyId: "AKOTHER" })).toThrow(
      s3Error(403, "InvalidAccessKeyId", { AWSAccessKeyId: "AKIAIOSFODNN7EXAMPLE" }),
    );
    const { authorization: _, ...unsigned } = getObject.headers;
    expect(checkGetObject({}, { method: "GET", headers: unsigned })).toThrow(s3Error(403, "AccessDenied"));
  });

  it("refuses a signature scoped to another region with 400 AuthorizationHeaderMalformed", () => {
    expect(checkGetObject({ region: "eu-west-1" })).toThrow(
      s3Error(400, "AuthorizationHeaderMalformed", { Region: "eu-west-1" }),
    );
  });
});
