// At a laptop's 1280 px: chat answers wrap their long tokens, the documents table shows its Delete
// buttons whole, the credits chart has one series per kind of spending, and search results are
// labelled by their score, not by their place in the list.
import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countCreditsSpent } from "../../builder/src/billing/append-ledger-entries.ts";
import { chargeGeneration, chargeSandboxRun } from "../../builder/src/billing/meter.ts";
import { personalWorkspaceId } from "../../builder/src/workspaces/personal-workspace.ts";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { uploadOk } from "../../builder/test/knowledge-support.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

const LONG_URL = `https://example.com/${"a-very-long-path-segment-".repeat(12)}end?query=${"x".repeat(80)}`;
const LONG_JSON = JSON.stringify({ items: Array.from({ length: 30 }, (_, i) => `item_${i}_value`) });

const HANDBOOK = [
  "# Refunds",
  "",
  "Customers may ask for a refund within 30 days of purchase. Refunds are paid to the original card.",
  "",
  "# Shipping",
  "",
  "Parcels leave the Bandung warehouse every weekday at noon.",
  "",
  "# Office plants",
  "",
  "The ficus by the window is watered on Mondays; the cactus needs nothing.",
].join("\n");

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let workspaceId: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: "sk-e2e-wrap-000001",
    script: () => ({ text: `See ${LONG_URL} and the data: ${LONG_JSON}` }),
  });
  builder = await startTestBuilder({
    env: {
      ALLOW_PRIVATE_URLS: "1",
      BILLING_PRICES: JSON.stringify({ generations: { image: 300 }, sandbox_second: 1_000 }),
    },
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors = collectPageErrors(page);
  const signedUp = await builder.signUp("layout@example.com", "correct horse battery");
  cookie = signedUp.cookie;
  workspaceId = await personalWorkspaceId(builder.deps, { id: signedUp.userId, name: "Layout" });
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

/** Whether an element's content is wider than its box (it scrolls, or would, sideways). */
function overflowsSideways(selector: string): Promise<boolean> {
  return page.evaluate(
    `(() => { const el = document.querySelector(${JSON.stringify(selector)}); return el.scrollWidth > el.clientWidth + 1; })()`,
  ) as Promise<boolean>;
}

describe("at 1280 px", () => {
  it("wraps a chat answer's long URL and JSON instead of scrolling the chat log sideways", async () => {
    await builder.request("/api/credentials", {
      method: "POST",
      cookie,
      json: { provider: "openai-compatible", api_key: "sk-e2e-wrap-000001", base_url: fake.baseUrl },
    });
    const agent = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Linker", provider: "openai-compatible", model: "fake-model" },
    });
    const { id } = (await agent.json()) as { id: string };
    await page.goto(`${builder.url}/agents/${id}`);
    await page.getByLabel("Message").fill("Where is it?");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.getByTestId("message-assistant").last().textContent(), { timeout: 15_000 })
      .toContain("end?query=");
    await screenshot(page, "chat-long-tokens-1280");
    expect(await overflowsSideways(".chat-log")).toBe(false);
    expect(await overflowsSideways("[data-testid=message-assistant]")).toBe(false);
    expect(await overflowsSideways("html")).toBe(false);
  });

  it("charts credits spent per kind of spending, not per description", async () => {
    const deps = { ...builder.deps };
    for (const durationMs of [9, 12, 1_500])
      await chargeSandboxRun(deps, { workspaceId, durationMs, language: "python", source: "sandbox_run" });
    countCreditsSpent(
      await chargeGeneration(deps, { id: "gen_chart", workspaceId, kind: "image", model: "owner/model" }),
    );
    await page.goto(`${builder.url}/usage`);
    const chart = page.getByRole("figure", { name: /Credits spent per day/ });
    await expect.poll(() => chart.locator(".u-legend .u-series").count()).toBeGreaterThan(1);
    const labels = await chart.locator(".u-legend .u-series .u-label").allTextContents();
    // Three sandbox runs of 9 ms, 12 ms and 1.5 s are one kind of spending, not three series.
    expect(labels).toContain("Code sandbox");
    expect(labels).toContain("Image and video generation");
    expect(labels.filter((label) => /sandbox/i.test(label))).toEqual(["Code sandbox"]);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it("shows each document's Delete button whole and clickable", async () => {
    const base = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie,
      json: { name: "Handbook" },
    });
    const { id } = (await base.json()) as { id: string };
    await uploadOk(builder, cookie, {
      knowledgeBaseId: id,
      name: "customer-service-handbook-2026-edition.md",
      bytes: HANDBOOK,
    });
    await page.goto(`${builder.url}/knowledge/${id}`);
    const row = page.getByTestId("document-row").first();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Ready");
    await screenshot(page, "knowledge-documents-1280");
    const button = page.getByRole("button", { name: /^Delete customer-service-handbook/ });
    const box = await button.boundingBox();
    const card = await page.getByRole("region", { name: "Documents", exact: true }).boundingBox();
    expect(box && card).toBeTruthy();
    if (!box || !card) return;
    expect(box.x).toBeGreaterThanOrEqual(card.x);
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    expect(await overflowsSideways("[aria-labelledby=documents-title] .table-scroll")).toBe(false);
    // Nothing covers it: a click at its centre lands on the button itself.
    const hit = await page.evaluate(
      `document.elementFromPoint(${box.x + box.width / 2}, ${box.y + box.height / 2})?.closest("button")?.getAttribute("aria-label")`,
    );
    expect(hit).toMatch(/^Delete customer-service-handbook/);
  });

  it("labels vector and hybrid results by their score: an unrelated passage is not a strong match", async () => {
    await page.getByLabel("Query").fill("how do refunds get paid");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    for (const mode of ["vector", "hybrid"]) {
      const hits = page.getByTestId(`mode-${mode}`).getByTestId("search-hit");
      await expect.poll(() => hits.count()).toBeGreaterThan(1);
      const texts = await hits.allTextContents();
      const refunds = texts.find((text) => text.includes("original card")) ?? "";
      const plants = texts.find((text) => text.includes("ficus")) ?? "";
      expect(refunds, mode).toMatch(/strong match/);
      expect(plants, mode).not.toBe("");
      expect(plants, mode).not.toMatch(/strong match/);
    }
    // No word of this question is in the handbook: what the rankings place first is still no match.
    await page.getByLabel("Query").fill("money back please");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    for (const mode of ["vector", "hybrid"]) {
      const hits = page.getByTestId(`mode-${mode}`).getByTestId("search-hit");
      await expect.poll(() => hits.count()).toBeGreaterThan(1);
      for (const text of await hits.allTextContents()) expect(text, mode).not.toMatch(/strong match/);
    }
    await screenshot(page, "knowledge-labels-1280");
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
