import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sign, signatureHeader, verify } from "./signature.ts";

const secret = "whsec_0123456789abcdef0123456789abcdef";
const body = '{"id":"evt_1","object":"event","type":"payment.succeeded"}';
const t = 1_767_225_600;
const now = new Date(t * 1000);

describe("sign", () => {
  it("is the lowercase hex HMAC-SHA256 of `<t>.<body>` keyed with the whole secret string", () => {
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${t}.${body}`).digest("hex");
    expect(sign(secret, body, t)).toBe(expected);
    expect(sign(secret, body, t)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("signs bytes and strings alike", () => {
    expect(sign(secret, Buffer.from(body, "utf8"), t)).toBe(sign(secret, body, t));
  });
});

describe("verify", () => {
  const header = signatureHeader([secret], body, t);

  it("accepts a fresh, correct signature", () => {
    expect(verify({ rawBody: body, header, secret, now })).toEqual({ isValid: true, timestamp: t });
  });

  it("rejects a missing header or a missing t", () => {
    expect(verify({ rawBody: body, header: undefined, secret, now })).toMatchObject({
      isValid: false,
      reason: "missing_header",
    });
    expect(verify({ rawBody: body, header: `v1=${sign(secret, body, t)}`, secret, now })).toMatchObject({
      isValid: false,
      reason: "missing_timestamp",
    });
  });

  it.each(["abc", "Infinity", "NaN", "1e9", "0x10", "", " ", "1.5"])(
    "rejects the non-finite or malformed t %j",
    (bad) => {
      const result = verify({ rawBody: body, header: `t=${bad},v1=${sign(secret, body, t)}`, secret, now });
      expect(result.isValid).toBe(false);
    },
  );

  it("rejects a t 301 s old or 301 s in the future, and accepts 300 s either way", () => {
    for (const offset of [-301, 301]) {
      const at = t + offset;
      expect(
        verify({ rawBody: body, header: signatureHeader([secret], body, at), secret, now }),
      ).toMatchObject({
        isValid: false,
        reason: "timestamp_out_of_tolerance",
      });
    }
    for (const offset of [-300, 300]) {
      const at = t + offset;
      expect(
        verify({ rawBody: body, header: signatureHeader([secret], body, at), secret, now }).isValid,
      ).toBe(true);
    }
  });

  it("rejects a tampered body", () => {
    const tampered = body.replace("succeeded", "failed");
    expect(verify({ rawBody: tampered, header, secret, now })).toMatchObject({
      isValid: false,
      reason: "signature_mismatch",
    });
  });

  it("rejects a re-serialised body that differs in bytes", () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(verify({ rawBody: reserialised, header, secret, now }).isValid).toBe(false);
  });

  it("rejects a wrong secret", () => {
    expect(verify({ rawBody: body, header, secret: `${secret}x`, now })).toMatchObject({
      isValid: false,
      reason: "signature_mismatch",
    });
  });

  it("rejects a signature of another length without throwing", () => {
    const full = sign(secret, body, t);
    for (const candidate of [full.slice(0, 63), `${full}0`, full.slice(0, 32), ""]) {
      expect(verify({ rawBody: body, header: `t=${t},v1=${candidate}`, secret, now })).toMatchObject({
        isValid: false,
      });
    }
  });

  it("rejects a header with two timestamps", () => {
    const result = verify({
      rawBody: body,
      header: `t=${t},t=${t + 1},v1=${sign(secret, body, t)}`,
      secret,
      now,
    });
    expect(result.isValid).toBe(false);
  });

  it("accepts the rotated pair: a header with both v1 entries verifies with either secret", () => {
    const oldSecret = "whsec_old_old_old_old_old_old_old_old";
    const rotated = signatureHeader([secret, oldSecret], body, t);
    expect(rotated.match(/v1=/g)).toHaveLength(2);
    expect(verify({ rawBody: body, header: rotated, secret, now }).isValid).toBe(true);
    expect(verify({ rawBody: body, header: rotated, secret: oldSecret, now }).isValid).toBe(true);
    expect(verify({ rawBody: body, header: rotated, secrets: ["whsec_other", oldSecret], now }).isValid).toBe(
      true,
    );
    expect(verify({ rawBody: body, header: rotated, secret: "whsec_unrelated", now }).isValid).toBe(false);
  });

  it("ignores unknown schemes such as v0", () => {
    const header0 = `t=${t},v0=deadbeef,v1=${sign(secret, body, t)}`;
    expect(verify({ rawBody: body, header: header0, secret, now }).isValid).toBe(true);
    expect(
      verify({ rawBody: body, header: `t=${t},v0=${sign(secret, body, t)}`, secret, now }),
    ).toMatchObject({
      isValid: false,
      reason: "missing_signature",
    });
  });

  it("takes now as Unix seconds too", () => {
    expect(verify({ rawBody: body, header, secret, now: t + 10 }).isValid).toBe(true);
  });
});
