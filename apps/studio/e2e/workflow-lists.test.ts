import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, signIn } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

/** One page of a studio list (LIST_PAGE_SIZE) and one item more, so "Load more" has something to bring. */
const TOTAL = 51;

const ECHO_GRAPH = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "end", type: "end", position: { x: 300, y: 0 }, data: { outputs: [{ name: "ok", value: "yes" }] } },
  ],
  edges: [{ id: "e", source: "start", target: "end" }],
};

async function createWorkflow(name: string): Promise<string> {
  const created = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name, graph: ECHO_GRAPH },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("lists@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("workflow lists", () => {
  it("lists workflows a page at a time, and 'Load more workflows' brings the rest", async () => {
    for (let i = 0; i < TOTAL; i++) await createWorkflow(`paged ${i}`);
    await page.goto(`${builder.url}/workflows`);
    const rows = page.getByTestId("workflow-row");
    await expect.poll(() => rows.count()).toBe(50);
    const more = page.getByRole("button", { name: "Load more workflows" });
    await more.click();
    await expect.poll(() => rows.count()).toBe(TOTAL);
    expect(await more.count()).toBe(0);
  });

  it("pages a workflow's runs and keeps the status filter on the next page", async () => {
    const id = await createWorkflow("run many times");
    for (let i = 0; i < TOTAL; i++) {
      const run = await builder.request(`/api/workflows/${id}/runs`, { method: "POST", cookie, json: {} });
      expect(run.status).toBe(200);
    }
    await page.goto(`${builder.url}/workflows/${id}/runs`);
    const rows = page.getByTestId("run-row");
    const more = page.getByRole("button", { name: "Load more runs" });
    await expect.poll(() => rows.count()).toBe(50);

    await page.getByLabel("Succeeded").check();
    await expect.poll(() => more.isVisible()).toBe(true);
    await more.click();
    await expect.poll(() => rows.count()).toBe(TOTAL);
    expect(await page.locator("[data-testid=run-row]:not([data-status=succeeded])").count()).toBe(0);
    expect(await more.count()).toBe(0);

    await page.getByLabel("Failed").check();
    await expect.poll(() => page.getByText("No failed runs").isVisible()).toBe(true);
    expect(await more.count()).toBe(0);
  });

  it("searches every page of the list from the search box, typed with the keyboard", async () => {
    // "paged 50" is on the second page of the list: the search asks the API, not the loaded rows.
    await createWorkflow("Nightly invoice export");
    await page.goto(`${builder.url}/workflows`);
    const rows = page.getByTestId("workflow-row");
    await expect.poll(() => rows.count()).toBe(50);
    const search = page.getByRole("searchbox", { name: "Search workflows" });
    await search.click();
    await page.keyboard.type("PAGED 0");
    await expect.poll(() => rows.allInnerTexts()).toEqual([expect.stringContaining("paged 0")]);
    await search.fill("");
    await page.keyboard.type("invoice");
    await expect
      .poll(() => rows.allInnerTexts())
      .toEqual([expect.stringContaining("Nightly invoice export")]);
    await search.fill("no such workflow");
    await expect
      .poll(() => page.getByRole("heading", { name: "No workflows match “no such workflow”" }).count())
      .toBe(1);
    expect(await rows.count()).toBe(0);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
