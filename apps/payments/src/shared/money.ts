import { z } from "@hono/zod-openapi";

/** 999,999,999,999.99 in minor units: the largest amount the API accepts. */
export const MAX_AMOUNT_MINOR = 99_999_999_999_999n;

/**
 * An API amount (a number with at most two decimals, or the same as a string) in integer minor
 * units, or the reason it is refused.
 *
 * @example parseAmount("150000.50") // 15000050n
 */
export function parseAmount(value: number | string): bigint | string {
  if (typeof value === "number" && !Number.isFinite(value)) return "must be a finite number";
  // String(number) is the shortest round-trip form, so 150000.5 → "150000.5" and 0.1 + 0.2 → "0.30000000000000004".
  const text = typeof value === "number" ? String(value) : value.trim();
  if (/^-/.test(text)) return "must be positive";
  const match = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) {
    if (/^\d+\.\d{3,}$/.test(text)) return "must have at most two decimals";
    return "must be a decimal amount such as 150000.50";
  }
  const minor = BigInt(match[1] ?? "0") * 100n + BigInt((match[2] ?? "").padEnd(2, "0"));
  if (minor === 0n) return "must be greater than 0";
  if (minor > MAX_AMOUNT_MINOR) return "must be at most 999999999999.99";
  return minor;
}

/**
 * Minor units as the API's decimal number.
 *
 * @example toAmount(15000050n) // 150000.5
 */
export function toAmount(minor: bigint): number {
  return Number(minor) / 100;
}

/** The request field of an amount: validated and turned into minor units. */
export const amountInput = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const minor = parseAmount(value);
    if (typeof minor === "string") {
      ctx.addIssue({ code: "custom", message: minor });
      return z.NEVER;
    }
    return minor;
  })
  .openapi({
    type: "number",
    example: 150000.5,
    description: "At most two decimals; a string is accepted too.",
  });

export const currencyInput = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in upper case, such as IDR")
  .default("IDR")
  .openapi({ example: "IDR" });
