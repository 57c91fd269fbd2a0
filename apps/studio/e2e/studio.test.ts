import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors = collectPageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("studio", () => {
  it("signs up, keeps the session across a reload, and signs out", async () => {
    await page.goto(`${builder.url}/`);
    await page.waitForURL("**/sign-in");
    await screenshot(page, "sign-in");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Name").fill("Ada");
    await page.getByLabel("E-mail").fill("ada.e2e@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL("**/agents");
    await expect.poll(() => page.getByText("No agents yet").isVisible()).toBe(true);
    await screenshot(page, "agents-empty");

    await page.reload();
    await expect
      .poll(() => page.getByRole("heading", { name: "Agents", exact: true }).isVisible())
      .toBe(true);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    await page.getByLabel("E-mail").fill("ada.e2e@example.com");
    await page.getByLabel("Password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("wrong");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/agents");
  });

  it("creates an agent with provider and model pickers and lists it", async () => {
    await page.getByRole("button", { name: "New agent" }).first().click();
    await page.waitForURL("**/agents/new");
    await page.getByLabel("Name").fill("Support bot");
    await page.getByLabel("Provider").selectOption("anthropic");
    expect(await page.getByLabel("Model").inputValue()).toBe("claude-sonnet-4-5");
    await page.getByLabel("Instructions").fill("Answer briefly.");
    await screenshot(page, "agent-editor");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL(/\/agents\/agt_/);
    await page.getByRole("link", { name: "Agents" }).click();
    await expect.poll(() => page.getByText("Support bot").isVisible()).toBe(true);
    expect(await page.getByText("anthropic · claude-sonnet-4-5").isVisible()).toBe(true);
    await screenshot(page, "agents-list");
  });

  it("shows an API key once and lists it by prefix", async () => {
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("New key name").fill("ci");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByTestId("new-api-key").textContent();
    expect(key).toMatch(/^bk_/);
    const listed = await builder.request("/api/agents", { bearer: key ?? "" });
    expect(listed.status).toBe(200);
    await screenshot(page, "settings-keys");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByTestId("new-api-key").count()).toBe(0);
    expect(await page.getByRole("cell", { name: "ci", exact: true }).isVisible()).toBe(true);
  });

  it("switches between light and dark themes", async () => {
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await page.getByRole("button", { name: /theme/ }).click();
    const after = await page.evaluate(() => document.documentElement.dataset.theme);
    expect(after).not.toBe(before);
    await screenshot(page, `theme-${after}`);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
