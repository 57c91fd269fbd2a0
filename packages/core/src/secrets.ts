import { createHash, timingSafeEqual } from "node:crypto";

/** SHA-256 hex digest; enough for high-entropy tokens such as API keys (not for passwords). */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Compares two secrets in constant time; strings of different byte length are unequal.
 *
 * @example constantTimeEqual(received, expected)
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}
