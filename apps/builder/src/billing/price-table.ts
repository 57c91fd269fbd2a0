import { z } from "zod";

/** The currency credits are sold in (the payment service's default, the local one). */
export const BILLING_CURRENCY = "IDR";

/** A pack of credits sold for a price; `priceMinor` is integer minor units (two decimals, as the payment service keeps money). */
export interface CreditPack {
  id: string;
  credits: number;
  priceMinor: bigint;
}

/** Credits per million tokens. */
export interface TokenPrice {
  input: number;
  output: number;
}

/**
 * What usage costs, in credits. Token prices are looked up by `provider/model`, then `provider/*`,
 * then `*`; generations by `owner/name`, then by kind.
 */
export interface PriceTable {
  tokens: Record<string, TokenPrice>;
  generations: { image: number; video: number; models: Record<string, number> };
  /** Per second of sandbox run time, billed by the millisecond. */
  sandboxSecond: number;
}

/** One credit is worth about one rupiah; bigger packs carry a bonus. */
export const DEFAULT_PACKS: readonly CreditPack[] = [
  { id: "pack_50k", credits: 50_000, priceMinor: 5_000_000n },
  { id: "pack_100k", credits: 105_000, priceMinor: 10_000_000n },
  { id: "pack_500k", credits: 550_000, priceMinor: 50_000_000n },
];

/** Given once to every new workspace, enough to try agents, workflows and the sandbox. */
export const DEFAULT_STARTER_CREDITS = 5_000;

export const DEFAULT_PRICES: PriceTable = {
  tokens: {
    "*": { input: 15_000, output: 60_000 },
    "openai/gpt-4.1": { input: 32_000, output: 128_000 },
    "openai/gpt-4.1-mini": { input: 6_500, output: 26_000 },
    "openai/gpt-4o": { input: 40_000, output: 160_000 },
    "openai/gpt-4o-mini": { input: 2_500, output: 10_000 },
    "openai/o4-mini": { input: 18_000, output: 72_000 },
    "anthropic/claude-sonnet-4-5": { input: 48_000, output: 240_000 },
    "anthropic/claude-opus-4-1": { input: 240_000, output: 1_200_000 },
    "anthropic/claude-3-5-haiku-latest": { input: 13_000, output: 64_000 },
    "google/gemini-2.5-pro": { input: 20_000, output: 160_000 },
    "google/gemini-2.5-flash": { input: 5_000, output: 40_000 },
    "groq/*": { input: 2_000, output: 4_000 },
    "deepseek/*": { input: 4_500, output: 18_000 },
  },
  generations: { image: 800, video: 8_000, models: {} },
  sandboxSecond: 2,
};

const credits = z.number().int().min(0).max(1_000_000_000);

/** `BILLING_PACKS`: `[{ "id": "pack_50k", "credits": 50000, "price": 50000 }, …]`, prices in whole rupiah. */
export const packsInput = z
  .array(
    z
      .object({
        id: z.string().regex(/^[a-z0-9_]{1,40}$/, "must be 1 to 40 of a-z, 0-9 and _"),
        credits: credits.min(1),
        price: z.number().int().min(1).max(999_999_999_999),
      })
      .strict(),
  )
  .min(1)
  .max(20)
  .refine((packs) => new Set(packs.map((pack) => pack.id)).size === packs.length, "pack ids must be unique")
  .transform((packs) =>
    packs.map((pack) => ({ id: pack.id, credits: pack.credits, priceMinor: BigInt(pack.price) * 100n })),
  );

const tokenPrice = z.object({ input: credits, output: credits }).strict();

/** `BILLING_PRICES`: any part of the table, merged over the defaults (token and model entries key by key). */
export const pricesInput = z
  .object({
    tokens: z.record(z.string().min(1).max(200), tokenPrice).optional(),
    generations: z
      .object({
        image: credits.optional(),
        video: credits.optional(),
        models: z.record(z.string().min(1).max(200), credits).optional(),
      })
      .strict()
      .optional(),
    sandbox_second: credits.optional(),
  })
  .strict();

/**
 * The defaults with an operator's overrides on top.
 *
 * @example mergePrices(DEFAULT_PRICES, { sandbox_second: 5 }).sandboxSecond // 5
 */
export function mergePrices(base: PriceTable, override: z.infer<typeof pricesInput>): PriceTable {
  return {
    tokens: { ...base.tokens, ...override.tokens },
    generations: {
      image: override.generations?.image ?? base.generations.image,
      video: override.generations?.video ?? base.generations.video,
      models: { ...base.generations.models, ...override.generations?.models },
    },
    sandboxSecond: override.sandbox_second ?? base.sandboxSecond,
  };
}

/**
 * The token price of a model: `provider/model`, else `provider/*`, else `*`.
 *
 * @example tokenPriceFor(DEFAULT_PRICES, "groq", "llama-3.1-8b-instant") // { input: 2000, output: 4000 }
 */
export function tokenPriceFor(prices: PriceTable, provider: string, model: string): TokenPrice {
  return (
    prices.tokens[`${provider}/${model}`] ??
    prices.tokens[`${provider}/*`] ??
    prices.tokens["*"] ?? { input: 0, output: 0 }
  );
}

/**
 * What one model call costs: its tokens at the model's price, rounded up to a whole credit.
 *
 * @example priceOfModelCall(DEFAULT_PRICES, { provider: "openai", model: "gpt-4o-mini", inputTokens: 1000, outputTokens: 200 }) // 5
 */
export function priceOfModelCall(
  prices: PriceTable,
  call: { provider: string; model: string; inputTokens: number; outputTokens: number },
): number {
  const price = tokenPriceFor(prices, call.provider, call.model);
  return Math.ceil((call.inputTokens * price.input + call.outputTokens * price.output) / 1_000_000);
}

/**
 * What one generation costs: the model's own price, else its kind's.
 *
 * @example priceOfGeneration(DEFAULT_PRICES, { kind: "image", model: "black-forest-labs/flux-schnell" }) // 800
 */
export function priceOfGeneration(
  prices: PriceTable,
  generation: { kind: "image" | "video"; model: string },
) {
  const model = generation.model.split(":")[0] ?? generation.model;
  return prices.generations.models[model] ?? prices.generations[generation.kind];
}

/**
 * What a sandbox run costs: its wall-clock time at the per-second price, rounded up to a whole credit.
 *
 * @example priceOfSandboxRun(DEFAULT_PRICES, 1_250) // 3
 */
export function priceOfSandboxRun(prices: PriceTable, durationMs: number): number {
  return Math.ceil((Math.max(0, durationMs) * prices.sandboxSecond) / 1000);
}

/**
 * Minor units as the decimal the payment service's API takes, as a string so no float rounding applies.
 *
 * @example toDecimalAmount(5_000_000n) // "50000.00"
 */
export function toDecimalAmount(minor: bigint): string {
  const whole = minor / 100n;
  const cents = (minor % 100n).toString().padStart(2, "0");
  return `${whole}.${cents}`;
}

/**
 * Minor units as the JSON number the API answers with (at most two decimals).
 *
 * @example toAmount(5_000_050n) // 50000.5
 */
export function toAmount(minor: bigint): number {
  return Number(minor) / 100;
}

/**
 * A JSON amount (a number with at most two decimals) as minor units, or undefined when it is not one.
 *
 * @example fromAmount(50000) // 5_000_000n
 */
export function fromAmount(amount: number): bigint | undefined {
  if (!Number.isFinite(amount) || amount < 0) return undefined;
  const minor = Math.round(amount * 100);
  if (Math.abs(minor - amount * 100) > 1e-6 || !Number.isSafeInteger(minor)) return undefined;
  return BigInt(minor);
}
