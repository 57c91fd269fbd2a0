import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

const GRAPH = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "end", type: "end", position: { x: 300, y: 0 }, data: { outputs: [{ name: "ok", value: "yes" }] } },
  ],
  edges: [{ id: "e", source: "start", target: "end" }],
};

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("schedules@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("schedules in the studio", () => {
  it("creates an every-second schedule in the editor, shows its next runs, and its runs appear", async () => {
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: { name: "every second", graph: GRAPH },
    });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`${builder.url}/workflows/${id}`);
    const panel = page.getByRole("region", { name: "Schedules" });
    await expect.poll(() => panel.getByText("This workflow runs only when asked.").isVisible()).toBe(true);

    // A preset writes the cron; the time zone starts as the browser's.
    const form = panel.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Runs", { exact: true }).selectOption("weekdays");
    expect(await form.getByLabel("Cron", { exact: true }).inputValue()).toBe("0 9 * * 1-5");
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(await form.getByLabel("Time zone").inputValue()).toBe(browserZone);

    // A bad expression: the API's message beside the field.
    await form.getByLabel("Cron", { exact: true }).fill("61 * * * *");
    await form.getByRole("button", { name: "Add schedule" }).click();
    await expect.poll(() => form.getByText(/minute: 61/).isVisible()).toBe(true);

    await form.getByLabel("Cron", { exact: true }).fill("* * * * * *");
    await form.getByLabel("Time zone").fill("UTC");
    await form.getByLabel("While the previous run is still going").selectOption("allow");
    await form.getByRole("button", { name: "Add schedule" }).click();

    const schedule = panel.getByTestId("schedule");
    await expect.poll(() => schedule.count()).toBe(1);
    await expect.poll(() => schedule.getByRole("listitem").count()).toBe(5);
    // Within a few seconds a tick has run, and the schedule shows its last run.
    await expect
      .poll(() => schedule.getByTestId("schedule-last-run").getAttribute("data-status"), { timeout: 20_000 })
      .toBe("succeeded");
    await expect
      .poll(() => page.getByRole("region", { name: "Run" }).locator(".run-history li").count(), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    await screenshot(page, "workflow-schedules", { isDoc: true });

    await schedule.getByRole("button", { name: "Pause" }).click();
    await expect.poll(() => schedule.getAttribute("data-enabled")).toBe("false");
    await expect.poll(() => schedule.getByRole("listitem").count()).toBe(0);

    await page.goto(`${builder.url}/workflows/${id}/runs`);
    const rows = page.locator("[data-testid=run-row][data-trigger=schedule]");
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    expect(await page.locator("[data-testid=run-row]:not([data-trigger=schedule])").count()).toBe(0);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
