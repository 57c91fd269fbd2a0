import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRICES,
  fromAmount,
  mergePrices,
  priceOfGeneration,
  priceOfModelCall,
  priceOfSandboxRun,
  toAmount,
  toDecimalAmount,
  tokenPriceFor,
} from "./price-table.ts";

const prices = mergePrices(DEFAULT_PRICES, {
  tokens: {
    "*": { input: 1_000, output: 3_000 },
    "acme/*": { input: 10, output: 10 },
    "acme/big": { input: 500_000, output: 1_000_000 },
  },
  generations: { image: 100, video: 1_000, models: { "acme/painter": 250 } },
  sandbox_second: 3,
});

describe("the price table", () => {
  it("prices tokens by provider/model, then provider/*, then *", () => {
    expect(tokenPriceFor(prices, "acme", "big")).toEqual({ input: 500_000, output: 1_000_000 });
    expect(tokenPriceFor(prices, "acme", "small")).toEqual({ input: 10, output: 10 });
    expect(tokenPriceFor(prices, "other", "x")).toEqual({ input: 1_000, output: 3_000 });
  });

  it("rounds a model call up to a whole credit, and a call without tokens costs nothing", () => {
    const call = { provider: "acme", model: "big", inputTokens: 3, outputTokens: 1 };
    // 3 × 0.5 + 1 × 1 = 2.5 credits → 3.
    expect(priceOfModelCall(prices, call)).toBe(3);
    expect(priceOfModelCall(prices, { ...call, inputTokens: 2, outputTokens: 0 })).toBe(1);
    expect(priceOfModelCall(prices, { ...call, inputTokens: 0, outputTokens: 0 })).toBe(0);
    expect(
      priceOfModelCall(prices, {
        provider: "x",
        model: "y",
        inputTokens: 1_000_000,
        outputTokens: 1_000_000,
      }),
    ).toBe(4_000);
  });

  it("prices a generation by its model, else its kind (a pinned version counts as its model)", () => {
    expect(priceOfGeneration(prices, { kind: "image", model: "acme/painter" })).toBe(250);
    expect(priceOfGeneration(prices, { kind: "image", model: `acme/painter:${"a".repeat(64)}` })).toBe(250);
    expect(priceOfGeneration(prices, { kind: "image", model: "acme/other" })).toBe(100);
    expect(priceOfGeneration(prices, { kind: "video", model: "acme/other" })).toBe(1_000);
  });

  it("bills sandbox time by the millisecond, rounded up to a whole credit", () => {
    expect(priceOfSandboxRun(prices, 1_000)).toBe(3);
    expect(priceOfSandboxRun(prices, 1_001)).toBe(4);
    expect(priceOfSandboxRun(prices, 1)).toBe(1);
    expect(priceOfSandboxRun(prices, 0)).toBe(0);
  });

  it("converts money between minor units and the payment service's decimals without floats", () => {
    expect(toDecimalAmount(5_000_000n)).toBe("50000.00");
    expect(toDecimalAmount(5_000_005n)).toBe("50000.05");
    expect(toAmount(5_000_050n)).toBe(50_000.5);
    expect(fromAmount(50_000)).toBe(5_000_000n);
    expect(fromAmount(0.1)).toBe(10n);
    expect(fromAmount(1.005)).toBeUndefined();
    expect(fromAmount(-1)).toBeUndefined();
  });
});
