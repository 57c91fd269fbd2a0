import { describe, expect, it } from "vitest";
import {
  isSignedFileUrlValid,
  SIGNED_FILE_URL_TTL_MS,
  signedFileUrl,
  withSignedFileUrls,
} from "./signed-file-url.ts";

const config = {
  publicUrl: "https://builder.example.com",
  secretKey: "a-secret-key-that-is-long-enough-0123456789",
};
const now = new Date("2026-11-28T10:00:00Z");
const fileId = "file_01jd3k6n0p7q8r9s0t1v2w3x4y";

function parts(url: string) {
  const parsed = new URL(url);
  return {
    expires: Number(parsed.searchParams.get("expires")),
    signature: parsed.searchParams.get("signature") ?? "",
  };
}

describe("signed file links", () => {
  it("open until they expire, for the file they name only", () => {
    const url = signedFileUrl(config, fileId, now);
    expect(url.startsWith(`${config.publicUrl}/api/public/files/${fileId}?expires=`)).toBe(true);
    expect(isSignedFileUrlValid(config.secretKey, fileId, parts(url), now)).toBe(true);
    const later = new Date(now.getTime() + SIGNED_FILE_URL_TTL_MS + 1000);
    expect(isSignedFileUrlValid(config.secretKey, fileId, parts(url), later)).toBe(false);
    expect(isSignedFileUrlValid(config.secretKey, "file_01jd3k6n0p7q8r9s0t1v2w3x4z", parts(url), now)).toBe(
      false,
    );
    expect(isSignedFileUrlValid("another-secret-key-that-is-long-enough-000", fileId, parts(url), now)).toBe(
      false,
    );
    const stretched = { ...parts(url), expires: parts(url).expires + 3600 };
    expect(isSignedFileUrlValid(config.secretKey, fileId, stretched, now)).toBe(false);
  });

  it("replace every link to a stored file in a run's outputs, however deep", () => {
    const outputs = {
      image: `${config.publicUrl}/api/files/${fileId}`,
      gallery: [{ url: `${config.publicUrl}/api/files/${fileId}` }],
      text: `See ${config.publicUrl}/api/files/${fileId} and https://elsewhere.example/api/files/${fileId}`,
      count: 2,
    };
    const signed = withSignedFileUrls(config, outputs, now);
    expect(signed.image).toBe(signedFileUrl(config, fileId, now));
    expect(signed.gallery[0]?.url).toBe(signedFileUrl(config, fileId, now));
    expect(signed.text).toBe(
      `See ${signedFileUrl(config, fileId, now)} and https://elsewhere.example/api/files/${fileId}`,
    );
    expect(signed.count).toBe(2);
  });
});
