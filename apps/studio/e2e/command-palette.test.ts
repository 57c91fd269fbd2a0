// The command palette: Ctrl-K, type, arrows and Enter take a person anywhere without the mouse.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, signIn } from "./browser.ts";

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

async function created(path: string, json: unknown): Promise<string> {
  const response = await builder.request(path, { method: "POST", cookie, json });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("palette@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("command palette", () => {
  it("opens with Ctrl-K, finds a workflow on a page not loaded, and Enter opens it", async () => {
    // Past the studio's first page of workflows, so only the API's search can find it.
    for (let i = 0; i < 52; i++) await created("/api/workflows", { name: `filler ${i}`, graph: GRAPH });
    const target = await created("/api/workflows", { name: "Quarterly invoice run", graph: GRAPH });
    await created("/api/knowledge-bases", { name: "Invoice policies" });
    await page.goto(`${builder.url}/agents`);
    await page.getByRole("heading", { name: "Agents" }).waitFor();

    await page.keyboard.press("Control+k");
    const input = page.getByRole("combobox", { name: /Jump to/ });
    await input.waitFor();
    expect(await input.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type("invoice");
    const options = page.getByRole("option");
    await expect
      .poll(() => options.allInnerTexts())
      .toEqual([
        expect.stringMatching(/Quarterly invoice run\s*Workflow/),
        expect.stringMatching(/Invoice policies\s*Knowledge base/),
      ]);
    expect(await a11yViolations(page)).toEqual([]);

    await page.keyboard.press("Enter");
    await page.waitForURL(`${builder.url}/workflows/${target}`);
    expect(await page.getByRole("dialog", { name: "Jump to" }).count()).toBe(0);
  });

  it("moves with the arrows to a screen, and Escape closes it back where focus was", async () => {
    await page.goto(`${builder.url}/agents`);
    await page.getByRole("heading", { name: "Agents" }).waitFor();
    await page.keyboard.press("Control+k");
    await page.keyboard.type("s");
    // Screens whose name holds an "s", in menu order: Agents, Workflows, Apps, Usage, Settings.
    const options = page.getByRole("option");
    await expect.poll(() => options.count()).toBeGreaterThan(3);
    const names = await options.allInnerTexts();
    const settings = names.findIndex((name) => name.startsWith("Settings"));
    for (let i = 0; i < settings; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${builder.url}/settings`);

    const opener = page.getByRole("button", { name: /Jump to/ });
    await opener.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("combobox", { name: /Jump to/ }).waitFor();
    await page.keyboard.press("Escape");
    expect(await page.getByRole("dialog", { name: "Jump to" }).count()).toBe(0);
    expect(await opener.evaluate((element) => element === document.activeElement)).toBe(true);
  });

  it("says when nothing matches", async () => {
    await page.keyboard.press("Control+k");
    await page.keyboard.type("zzqx nothing");
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Nothing matches" }).count()).toBe(1);
    await page.keyboard.press("Escape");
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
