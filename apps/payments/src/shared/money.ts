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

/**
 * An API amount (a JSON number with at most two decimals, or exactly such a decimal as a string:
 * no spaces, signs or exponents) in integer minor units, or the reason it is refused.
 *
 * @example parseAmount("150000.50") // 15000050n
 */
export function parseAmount(value: number | string): bigint | string {
  if (typeof value === "number" && !Number.isFinite(value)) return "must be a finite number";
  // String(number) is the shortest round-trip form, so 150000.5 → "150000.5" and 0.1 + 0.2 → "0.30000000000000004".
  const text = typeof value === "number" ? String(value) : value;
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
