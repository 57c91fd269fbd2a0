import { sha256Hex } from "@app/core";
import { describe, expect, it } from "vitest";
import { hashRequest, isSameRequest } from "./hash-request.ts";

const hash = (body: string) => hashRequest("POST", "/v1/payments", body);

describe("hashRequest", () => {
  it("is the same for the same JSON whatever its key order, whitespace or number spelling", () => {
    const canonical = hash('{"amount":5000,"items":[{"a":1,"b":[true,null]}],"method":"qris"}');
    expect(
      hash('{ "method": "qris",\n\t"items": [ { "b": [ true, null ], "a": 1.0 } ], "amount": 5e3 }'),
    ).toBe(canonical);
  });

  it("differs for another value, another array order, another path or a non-JSON body", () => {
    const canonical = hash('{"amount":5000,"items":[1,2]}');
    expect(hash('{"amount":5001,"items":[1,2]}')).not.toBe(canonical);
    expect(hash('{"amount":5000,"items":[2,1]}')).not.toBe(canonical);
    expect(hash('{"amount":"5000","items":[1,2]}')).not.toBe(canonical);
    expect(hashRequest("POST", "/v1/payouts", '{"amount":5000,"items":[1,2]}')).not.toBe(canonical);
    expect(hash("amount=5000")).toBe(sha256Hex("POST /v1/payments\namount=5000"));
  });

  it("still matches a key stored before hashes were canonical (the raw body's hash) for its 24 h", () => {
    const body = '{"method":"qris","amount":5000}';
    expect(isSameRequest(sha256Hex(`POST /v1/payments\n${body}`), "POST", "/v1/payments", body)).toBe(true);
    expect(isSameRequest(hash(body), "POST", "/v1/payments", '{ "amount": 5000, "method": "qris" }')).toBe(
      true,
    );
    expect(isSameRequest(hash(body), "POST", "/v1/payments", '{"amount":5001,"method":"qris"}')).toBe(false);
  });
});
