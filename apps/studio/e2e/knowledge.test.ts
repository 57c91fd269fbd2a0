import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];

const HANDBOOK = [
  "# Handbook",
  "",
  "## Refunds",
  "",
  "Customers may ask for a refund within 30 days of purchase. Refunds are paid to the original card.",
  "",
  "## Shipping",
  "",
  "Parcels leave the Bandung warehouse every weekday at noon.",
].join("\n");

/** Drops files on the drop zone the way a browser does: a `drop` event carrying a DataTransfer. */
async function dropFiles(files: { name: string; type: string; text: string }[]) {
  // A string expression, not a function: tsx's `__name` helper does not exist in the page.
  const dataTransfer = await page.evaluateHandle(`(() => {
    const transfer = new DataTransfer();
    for (const file of ${JSON.stringify(files)}) transfer.items.add(new File([file.text], file.name, { type: file.type }));
    return transfer;
  })()`);
  await page.dispatchEvent("[data-testid=dropzone]", "dragenter", { dataTransfer });
  await page.dispatchEvent("[data-testid=dropzone]", "drop", { dataTransfer });
}

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  const { cookie } = await builder.signUp("kb@example.com", "correct horse battery");
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("knowledge bases", () => {
  it("creates a knowledge base from the empty state", async () => {
    await page.goto(`${builder.url}/knowledge`);
    await expect.poll(() => page.getByText("No knowledge bases yet").isVisible()).toBe(true);
    await screenshot(page, "knowledge-empty");
    await page.getByRole("button", { name: "Create your first knowledge base" }).click();
    await page.getByLabel("Name").fill("Support handbook");
    await page.getByLabel("Description").fill("What the support team knows");
    expect(await page.getByLabel("Embedding provider").inputValue()).toBe("local");
    await page.getByRole("button", { name: "Create knowledge base" }).click();
    await page.waitForURL(/\/knowledge\/kb_/);
    await expect
      .poll(() => page.getByRole("heading", { name: "Support handbook", exact: true }).isVisible())
      .toBe(true);
    await expect.poll(() => page.getByText("No documents yet").isVisible()).toBe(true);
  });

  it("uploads dropped files with progress until ready, and says why a file is refused", async () => {
    await dropFiles([
      { name: "handbook.md", type: "text/markdown", text: HANDBOOK },
      { name: "photo.exe", type: "application/octet-stream", text: "MZ not a document" },
    ]);
    const uploads = page.getByTestId("upload");
    await expect.poll(() => uploads.count()).toBe(2);
    const handbook = uploads.filter({ hasText: "handbook.md" });
    await expect.poll(() => handbook.textContent(), { timeout: 20_000 }).toContain("Ready");
    expect(await handbook.textContent()).toMatch(/\d+ chunks?/);
    const refused = uploads.filter({ hasText: "photo.exe" });
    await expect.poll(() => refused.textContent()).toContain("Refused");
    expect(await refused.textContent()).toContain("Unsupported file type");

    const row = page.getByTestId("document-row").filter({ hasText: "handbook.md" });
    await expect.poll(() => row.textContent()).toContain("Ready");
    expect(await page.getByTestId("document-row").count()).toBe(1);

    await page.getByRole("button", { name: "Chunks of handbook.md" }).click();
    await expect
      .poll(() => page.getByText("Refunds are paid to the original card.").first().isVisible())
      .toBe(true);
    expect(await page.getByText("Handbook › Refunds").first().isVisible()).toBe(true);
  });

  it("refuses the same file twice with the API's message", async () => {
    await dropFiles([{ name: "handbook-copy.md", type: "text/markdown", text: HANDBOOK }]);
    const copy = page.getByTestId("upload").filter({ hasText: "handbook-copy.md" });
    await expect.poll(() => copy.textContent()).toContain("Refused");
    expect(await copy.textContent()).toMatch(/same content|already/i);
  });

  it("answers a retrieval test in the three modes side by side, with ranks and readable relevance", async () => {
    await page.getByLabel("Query").fill("how do refunds get paid");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    for (const mode of ["fulltext", "vector", "hybrid"]) {
      const hits = page.getByTestId(`mode-${mode}`).getByTestId("search-hit");
      await expect.poll(() => hits.count()).toBeGreaterThan(0);
      const first = (await hits.first().textContent()) ?? "";
      expect(first, mode).toContain("handbook.md");
      expect(first, mode).toContain("original card");
      // A fused list (hybrid; vector with the local embedder) gives the word, full text its share too.
      expect(first, mode).toMatch(mode === "fulltext" ? /Rank #1, strong · 100%/ : /Rank #1, strong match/);
      expect(first, mode).not.toMatch(/\d\.\d{3}/);
    }
    await screenshot(page, "knowledge-base", { isDoc: true });
    // The upload card stays in its column, clear of the documents card.
    const upload = await page.getByRole("region", { name: "Upload documents", exact: true }).boundingBox();
    const documents = await page.getByRole("region", { name: "Documents", exact: true }).boundingBox();
    expect((upload?.x ?? 0) + (upload?.width ?? 0)).toBeLessThanOrEqual(documents?.x ?? 0);

    await page.getByLabel("Query").fill("warehouse");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("mode-fulltext").getByTestId("search-hit").first().textContent())
      .toContain("Bandung");
  });

  it("lists the base and works in the dark theme too", async () => {
    await page.getByRole("link", { name: "← Knowledge bases" }).click();
    await page.waitForURL("**/knowledge");
    await expect.poll(() => page.getByRole("link", { name: "Support handbook" }).isVisible()).toBe(true);
    expect(await page.getByText("local · feature-hashing-v1").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Dark theme" }).click();
    await screenshot(page, "knowledge-list-dark");
    await page.getByRole("button", { name: "Light theme" }).click();
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
