import { randomBytes, randomFillSync } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

function encodeBase32(value: bigint, length: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(rest & 31n)] + out;
    rest >>= 5n;
  }
  return out;
}

// Random bytes for ids come from a pool refilled 4 KiB at a time: a call to the system's generator
// per id cost more than the rest of making it. (The same approach as the uuid package's pool.)
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString("hex", poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/**
 * A new resource id: the prefix, then 26 characters that sort by creation time
 * (48 bits of milliseconds, then 80 random bits), so cursors can compare ids.
 *
 * @example newId("agt") // "agt_01jd3k6n0p7q8r9s0t1v2w3x4y"
 */
export function newId(prefix: string, nowMs: number = Date.now()): string {
  const time = encodeBase32(BigInt(nowMs), 10);
  const random = encodeBase32(BigInt(`0x${randomHex(10)}`), 16);
  return `${prefix}_${time}${random}`;
}

/**
 * A high-entropy secret token with a readable prefix, for API keys and URL tokens.
 *
 * @example newSecretToken("bk") // "bk_3q2…" (43 base64url characters after the prefix)
 */
export function newSecretToken(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString("base64url")}`;
}
