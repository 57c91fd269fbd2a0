import { CommonErrors } from "@app/http";
import { z } from "@hono/zod-openapi";

/**
 * ISO 4217 minor units of the currencies the service can be configured to accept. Amounts are
 * kept in hundredths of the unit (IDR's minor unit), so currencies with three minor digits (BHD,
 * KWD, …) cannot be offered; one with none (JPY) takes whole amounts only.
 */
export const ISO_4217_MINOR_UNITS: Readonly<Record<string, 0 | 2>> = {
  AED: 2,
  AUD: 2,
  BDT: 2,
  BRL: 2,
  CAD: 2,
  CHF: 2,
  CNY: 2,
  CZK: 2,
  DKK: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  IDR: 2,
  INR: 2,
  JPY: 0,
  KRW: 0,
  MXN: 2,
  MYR: 2,
  NOK: 2,
  NZD: 2,
  PHP: 2,
  PKR: 2,
  PLN: 2,
  SAR: 2,
  SEK: 2,
  SGD: 2,
  THB: 2,
  TWD: 2,
  USD: 2,
  VND: 0,
  ZAR: 2,
};

/** The default of `PAYMENTS_CURRENCIES`: the local currency only. */
export const DEFAULT_CURRENCIES = ["IDR"] as const;

/** 999,999,999,999.99 in minor units: the largest amount the API accepts. */
export const MAX_AMOUNT_MINOR = 99_999_999_999_999n;

/** The largest amount the API accepts, as the API writes it. */
const MAX_AMOUNT_TEXT = "999999999999.99";

/**
 * An amount written as a string: a canonical decimal (no spaces, sign, exponent, grouping or leading
 * zeros), at most 12 integer digits and two decimals, not zero. In the OpenAPI document as it is, so
 * the document accepts exactly what the check does.
 */
const AMOUNT_STRING_PATTERN = "^(?:[1-9][0-9]{0,11}(?:\\.[0-9]{1,2})?|0\\.(?:[1-9][0-9]?|0[1-9]))$";

const NOT_AN_AMOUNT =
  'must be a number with at most two decimals (150000.5), or such a decimal as a string ("150000.50")';

/**
 * An API amount in integer minor units, or the reason it is refused. The contract
 * (spec/payments.md, "Money") makes amounts decimals with two fractional digits, and accepts on input a
 * JSON number with at most two decimals or exactly such a decimal as a string; more decimals,
 * negative, zero or above 999,999,999,999.99 are refused.
 *
 * @example parseAmount("150000.50") // 15000050n
 */
export function parseAmount(value: number | string): bigint | string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "must be a finite number";
    if (value < 0) return "must be positive";
    if (value === 0) return "must be greater than 0";
    if (value > MAX_AMOUNT_MINOR_NUMBER) return `must be at most ${MAX_AMOUNT_TEXT}`;
    // Below the smallest unit: String() would write it with an exponent (1e-7).
    if (value < 0.01) return "must have at most two decimals";
  }
  // String(number) is the shortest round-trip form, so 150000.5 → "150000.5" and 0.1 + 0.2 → "0.30000000000000004".
  const text = typeof value === "number" ? String(value) : value;
  if (/^-/.test(text)) return "must be positive";
  const match = /^(0|[1-9]\d*)(?:\.(\d+))?$/.exec(text);
  if (!match) return NOT_AN_AMOUNT;
  if ((match[2] ?? "").length > 2) return "must have at most two decimals";
  if ((match[1] ?? "").length > 12) return `must be at most ${MAX_AMOUNT_TEXT}`;
  const minor = BigInt(match[1] ?? "0") * 100n + BigInt((match[2] ?? "").padEnd(2, "0"));
  if (minor === 0n) return "must be greater than 0";
  if (minor > MAX_AMOUNT_MINOR) return `must be at most ${MAX_AMOUNT_TEXT}`;
  return minor;
}

const MAX_AMOUNT_MINOR_NUMBER = Number(MAX_AMOUNT_MINOR) / 100;

/**
 * Minor units as the API's decimal number.
 *
 * @example toAmount(15000050n) // 150000.5
 */
export function toAmount(minor: bigint): number {
  return Number(minor) / 100;
}

/**
 * The request field of an amount: validated and turned into minor units. The two alternatives carry
 * in the OpenAPI document the bounds `parseAmount` checks, so the document accepts what it accepts.
 */
export const amountInput = z
  .union(
    [
      z.number().openapi({ exclusiveMinimum: 0, maximum: 999_999_999_999.99, multipleOf: 0.01 }),
      z.string().openapi({ pattern: AMOUNT_STRING_PATTERN }),
    ],
    { error: NOT_AN_AMOUNT },
  )
  .transform((value, ctx) => {
    const minor = parseAmount(value);
    if (typeof minor === "string") {
      ctx.addIssue({ code: "custom", message: minor });
      return z.NEVER;
    }
    return minor;
  })
  .openapi({
    example: 150000.5,
    description:
      'A decimal with at most two fractional digits, above 0 and at most 999999999999.99: a JSON number (150000.5) or the same decimal as a string ("150000.50", no spaces, sign, exponent or leading zeros), as the contract (spec/payments.md) says. Stored as integer minor units. Anything else is 422 `validation_failed` with `param` naming the field.',
  });

export const currencyInput = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in upper case, such as IDR")
  .default("IDR")
  .openapi({
    example: "IDR",
    description: "One of the currencies the service accepts (PAYMENTS_CURRENCIES)",
  });

/**
 * Refuses (422, naming the field) a currency the service is not configured for, and an amount
 * with decimals in a currency without minor units.
 *
 * @example checkMoney(deps.config.currencies, input.currency, input.amount);
 */
export function checkMoney(
  accepted: readonly string[],
  currency: string,
  amount: bigint | undefined,
  params: { currency?: string; amount?: string } = { currency: "currency", amount: "amount" },
): void {
  if (!accepted.includes(currency)) {
    const message = `must be one of ${accepted.join(", ")}`;
    throw CommonErrors.VALIDATION_FAILED({
      message: `Invalid body. ${params.currency ?? "currency"}: ${message}`,
      ...(params.currency ? { param: params.currency, details: [{ path: params.currency, message }] } : {}),
    });
  }
  if (amount !== undefined && ISO_4217_MINOR_UNITS[currency] === 0 && amount % 100n !== 0n) {
    const message = `must be a whole number: ${currency} has no minor units`;
    throw CommonErrors.VALIDATION_FAILED({
      message: `Invalid body. ${params.amount ?? "amount"}: ${message}`,
      param: params.amount ?? "amount",
      details: [{ path: params.amount ?? "amount", message }],
    });
  }
}

/**
 * Puts the configured currencies into the OpenAPI document as the `enum` of every request's
 * `currency`, so the document is as strict as the check.
 *
 * @example describeCurrencies(document, config.currencies);
 */
export function describeCurrencies<D extends { components?: object }>(
  document: D,
  accepted: readonly string[],
): D {
  const schemas = (
    document.components as { schemas?: Record<string, { properties?: Record<string, object> }> }
  )?.schemas;
  for (const schema of Object.values(schemas ?? {})) {
    const currency = schema.properties?.currency as { pattern?: string; enum?: string[] } | undefined;
    if (currency?.pattern === undefined) continue;
    currency.enum = [...accepted];
    delete currency.pattern;
  }
  return document;
}
