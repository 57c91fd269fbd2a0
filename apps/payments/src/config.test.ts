import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPaymentsConfig } from "./config.ts";

describe("loadPaymentsConfig", () => {
  it("serves from several processes only with PostgreSQL, naming PAYMENTS_WEB_CONCURRENCY otherwise", () => {
    const dir = () => mkdtempSync(join(tmpdir(), "payments-cfg-"));
    expect(loadPaymentsConfig({ DATA_DIR: dir() }).processes).toBe(1);
    expect(
      loadPaymentsConfig({
        DATA_DIR: dir(),
        PAYMENTS_WEB_CONCURRENCY: "3",
        PAYMENTS_DATABASE_URL: "postgres://db/payments",
      }).processes,
    ).toBe(3);
    expect(() => loadPaymentsConfig({ DATA_DIR: dir(), PAYMENTS_WEB_CONCURRENCY: "2" })).toThrow(
      /PAYMENTS_WEB_CONCURRENCY: above 1 needs PAYMENTS_DATABASE_URL/,
    );
  });

  it("accepts IDR by default and other ISO 4217 currencies by configuration, refusing three minor digits", () => {
    expect(loadPaymentsConfig({}).currencies).toEqual(["IDR"]);
    expect(loadPaymentsConfig({ PAYMENTS_CURRENCIES: "IDR, USD,JPY,USD" }).currencies).toEqual([
      "IDR",
      "USD",
      "JPY",
    ]);
    expect(() => loadPaymentsConfig({ PAYMENTS_CURRENCIES: "IDR,KWD" })).toThrow(/PAYMENTS_CURRENCIES/);
    expect(() => loadPaymentsConfig({ PAYMENTS_CURRENCIES: "XXX" })).toThrow(/ISO 4217/);
  });
});
