import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paymentServiceLink } from "../../builder/src/billing/schema.ts";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { startTestPayments, type TestPayments } from "../../payments/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let payments: TestPayments;
let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  // Both services for real: the payment service delivers its signed webhooks on its own.
  payments = await startTestPayments({ isEngineRunning: true });
  builder = await startTestBuilder({
    env: {
      PAYMENTS_URL: payments.url,
      PAYMENTS_SECRET_KEY: payments.testKey,
      BILLING_STARTER_CREDITS: "5000",
    },
  });
  // The builder registers its webhook endpoint on the payment service as it starts.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [link] = await builder.deps.db.select().from(paymentServiceLink);
    if (link?.endpointId) break;
    if (Date.now() > deadline) throw new Error("the builder did not link up with the payment service");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  const { cookie } = await builder.signUp("billing@example.com", "correct horse battery");
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await payments?.stop();
});

describe("billing", () => {
  it("shows the balance, the packs in rupiah and the starter grant in the ledger", async () => {
    await page.goto(`${builder.url}/billing`);
    await expect.poll(() => page.getByTestId("balance").textContent()).toMatch(/^5.000 credits$/);
    const packs = page.getByTestId("pack");
    expect(await packs.count()).toBeGreaterThan(0);
    const price = new Intl.NumberFormat("id-ID", { style: "currency", currency: "IDR" }).format(50_000);
    expect(await packs.first().textContent()).toContain(price);
    expect(await page.getByTestId("ledger-row").first().textContent()).toContain("+5");
    expect(await page.getByText("No orders yet").isVisible()).toBe(true);
    await screenshot(page, "billing");
  });

  it("buys credits through the payment service's checkout and comes back to the new balance", async () => {
    await page.getByTestId("pack").first().getByRole("button", { name: /^Buy/ }).click();
    await page.waitForURL(`${payments.url}/checkout/**`);
    await screenshot(page, "billing-checkout", { isDoc: true });
    await page.getByRole("button", { name: "Simulate payment" }).click();
    // The checkout sends the customer back to the studio, as the builder's return_url asks.
    await page.waitForURL((url) => url.origin === builder.url && url.pathname === "/billing");
    expect(new URL(page.url()).searchParams.get("status")).toMatch(/processing|succeeded/);
    await expect
      .poll(() => page.getByTestId("order-notice").textContent(), { timeout: 20_000 })
      .toMatch(/Payment received: 50.000 credits added\./);
    expect(await page.getByTestId("balance").textContent()).toMatch(/^55.000 credits$/);
    const order = page.getByTestId("order-row").first();
    expect(await order.textContent()).toContain("paid");
    expect(await page.getByTestId("ledger-row").first().textContent()).toContain("+50");
    await screenshot(page, "billing-paid");

    await page.getByRole("button", { name: "Dismiss" }).click();
    expect(await page.getByTestId("order-notice").count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId("balance").isVisible()).toBe(true);
    expect(await page.getByTestId("order-notice").count()).toBe(0);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
