import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type Checksum, ChecksumCalculator, compositeChecksum, crc32c } from "./checksums.ts";
import type { RequestHead } from "./http.ts";

/** The standard check input of the CRC catalogue. */
const CHECK = Buffer.from("123456789");
const base64OfHex = (hex: string) => Buffer.from(hex, "hex").toString("base64");

function calculatorOf(...pieces: string[]): ChecksumCalculator {
  const calculator = new ChecksumCalculator();
  for (const piece of pieces) calculator.update(Buffer.from(piece));
  return calculator;
}

const requestWith = (headers: Record<string, string>): RequestHead => ({ method: "PUT", headers });

describe("crc32c", () => {
  it("gives the catalogue's check value 0xE3069283 for '123456789'", () => {
    expect(crc32c(CHECK)).toBe(0xe3069283);
  });

  it("continues from a previous value, so a body can be checked piece by piece", () => {
    expect(crc32c(CHECK.subarray(4), crc32c(CHECK.subarray(0, 4)))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });
});

describe("ChecksumCalculator", () => {
  it("writes each algorithm's known vector in base64 as S3 does, however the bytes were split", () => {
    expect(calculatorOf("1234", "56789").digest("crc32")).toBe(base64OfHex("cbf43926"));
    expect(calculatorOf("12", "3456789").digest("crc32c")).toBe(base64OfHex("e3069283"));
    expect(calculatorOf("a", "bc").digest("sha1")).toBe(
      base64OfHex("a9993e364706816aba3e25717850c26c9cd0d89d"),
    );
    expect(calculatorOf("ab", "c").digest("sha256")).toBe(
      base64OfHex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    );
  });

  it("does not compute CRC64/NVME, so it accepts whatever value comes with it", () => {
    expect(calculatorOf("123456789").digest("crc64nvme")).toBeUndefined();
    const given = requestWith({ "x-amz-checksum-crc64nvme": "AAAAAAAAAAA=" });
    expect(calculatorOf("123456789").verify(given, {})).toEqual({
      algorithm: "crc64nvme",
      value: "AAAAAAAAAAA=",
    });
  });

  it("answers the checksum a header gave when it matches, and nothing when none was given", () => {
    const crc = base64OfHex("e3069283");
    expect(calculatorOf("123456789").verify(requestWith({ "x-amz-checksum-crc32c": crc }), {})).toEqual({
      algorithm: "crc32c",
      value: crc,
    });
    expect(calculatorOf("123456789").verify(requestWith({}), {})).toBeUndefined();
  });

  it("refuses a checksum that does not match the bytes: 400 BadDigest", () => {
    const given = requestWith({ "x-amz-checksum-crc32": base64OfHex("e3069283") });
    expect(() => calculatorOf("123456789").verify(given, {})).toThrow(
      expect.objectContaining({
        status: 400,
        code: "BadDigest",
      }),
    );
  });

  it("checks a checksum sent in a declared trailer, and refuses an undeclared trailer", () => {
    const declared = requestWith({ "x-amz-trailer": "x-amz-checksum-crc32" });
    const good = { "x-amz-checksum-crc32": base64OfHex("cbf43926") };
    expect(calculatorOf("123456789").verify(declared, good)).toEqual({
      algorithm: "crc32",
      value: base64OfHex("cbf43926"),
    });
    expect(() => calculatorOf("123456789").verify(declared, { "x-amz-checksum-crc32": "AAAAAA==" })).toThrow(
      expect.objectContaining({ code: "BadDigest" }),
    );
    expect(() => calculatorOf("123456789").verify(requestWith({}), good)).toThrow(
      expect.objectContaining({
        status: 400,
        code: "MalformedTrailerError",
      }),
    );
  });

  it("refuses two checksums at once, or one the SDK header names differently: 400 InvalidRequest", () => {
    const two = requestWith({
      "x-amz-checksum-crc32": base64OfHex("cbf43926"),
      "x-amz-checksum-crc32c": base64OfHex("e3069283"),
    });
    expect(() => calculatorOf("123456789").verify(two, {})).toThrow(
      expect.objectContaining({
        status: 400,
        code: "InvalidRequest",
      }),
    );
    const mismatched = requestWith({
      "x-amz-checksum-crc32": base64OfHex("cbf43926"),
      "x-amz-sdk-checksum-algorithm": "CRC32C",
    });
    expect(() => calculatorOf("123456789").verify(mismatched, {})).toThrow(
      expect.objectContaining({
        code: "InvalidRequest",
      }),
    );
  });
});

describe("compositeChecksum", () => {
  const crc32Part = (text: string): { checksum: Checksum } => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(crc32(text));
    return { checksum: { algorithm: "crc32", value: bytes.toString("base64") } };
  };

  it("is the checksum of the parts' raw checksums, then -<part count>", () => {
    const joined = Buffer.alloc(8);
    joined.writeUInt32BE(crc32("hello "), 0);
    joined.writeUInt32BE(crc32("world"), 4);
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(joined));
    expect(compositeChecksum("crc32", [crc32Part("hello "), crc32Part("world")])).toEqual({
      algorithm: "crc32",
      value: `${expected.toString("base64")}-2`,
    });
  });

  it("gives the CRC32C check value when the parts' checksums are the bytes of '123456789'", () => {
    const parts = [
      { checksum: { algorithm: "crc32c", value: CHECK.subarray(0, 4).toString("base64") } },
      { checksum: { algorithm: "crc32c", value: CHECK.subarray(4).toString("base64") } },
    ];
    expect(compositeChecksum("crc32c", parts)).toEqual({
      algorithm: "crc32c",
      value: `${base64OfHex("e3069283")}-2`,
    });
  });

  it("is absent when the upload named no algorithm or a part came without that one", () => {
    expect(compositeChecksum(undefined, [crc32Part("a")])).toBeUndefined();
    expect(compositeChecksum("crc32", [crc32Part("a"), { checksum: undefined }])).toBeUndefined();
    expect(compositeChecksum("crc32c", [crc32Part("a")])).toBeUndefined();
  });
});
