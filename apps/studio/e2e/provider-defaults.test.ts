// A workspace whose only key is Anthropic's: a new agent and a template's LLM nodes start on
// Anthropic with a model the key lists (not OpenAI's gpt-4o-mini), the model suggestions are what the
// key lists, and a workspace without any key is sent to Settings when a run needs one.
import { type FakeProvider, startFakeAnthropic } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, signIn } from "./browser.ts";

const LISTED = ["claude-fake-live", "claude-fake-small"];

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

beforeAll(async () => {
  fake = await startFakeAnthropic({
    apiKey: "sk-ant-e2e-000001",
    models: LISTED,
    script: () => ({ text: "urgent" }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pageErrors = collectPageErrors(page);
  cookie = (await builder.signUp("anthropic-only@example.com", "correct horse battery")).cookie;
  await signIn(page.context(), cookie, builder.url);
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "anthropic", api_key: "sk-ant-e2e-000001", base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

describe("provider defaults", () => {
  it("starts a new agent on the workspace's provider, suggesting the models its key lists", async () => {
    await page.goto(`${builder.url}/agents/new`);
    const provider = page.getByRole("combobox", { name: "Provider" });
    await expect.poll(() => provider.inputValue()).toBe("anthropic");
    await expect.poll(() => page.locator("input[name=model]").inputValue()).toBe("claude-fake-live");
    const suggested = await page
      .locator("[data-testid=model-suggestions] option")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(suggested.slice(0, 2)).toEqual(LISTED);
    expect(suggested).not.toContain("gpt-4o-mini");
  });

  it("puts a template's LLM nodes on the workspace's provider, so its first run succeeds", async () => {
    await page.goto(`${builder.url}/workflows`);
    await page.getByRole("button", { name: "Use template Classify and route" }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
    const workflow = (await (await builder.request(`/api/workflows/${id}`, { cookie })).json()) as {
      graph: { nodes: { type: string; data: { provider?: string; model?: string } }[] };
    };
    const llm = workflow.graph.nodes.find((node) => node.type === "llm");
    expect(llm?.data).toMatchObject({ provider: "anthropic", model: "claude-fake-live" });
    await page.getByLabel("Input message").fill("The site is down");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("run-result").getAttribute("data-status"), { timeout: 20_000 })
      .toBe("succeeded");
  });

  it("links a run that needs a key to Settings, not to POST /api/credentials", async () => {
    const other = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectPageErrors(other);
    await signIn(
      other.context(),
      (await builder.signUp("no-key@example.com", "correct horse battery")).cookie,
      builder.url,
    );
    await other.goto(`${builder.url}/workflows`);
    await other.getByRole("button", { name: "Use template Classify and route" }).click();
    await other.waitForURL(/\/workflows\/wf_/);
    await other.getByLabel("Input message").fill("The site is down");
    await other.getByRole("button", { name: "Run", exact: true }).click();
    const missing = other.getByTestId("run-result").getByTestId("missing-key");
    await expect.poll(() => missing.isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await missing.getByRole("link").getAttribute("href")).toContain("/settings");
    expect(await other.getByTestId("run-result").textContent()).not.toContain("POST /api/credentials");
    expect(errors).toEqual([]);
    await other.close();
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
