import { FAKE_REPLICATE_MODELS, type FakeReplicate, startFakeReplicate } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

// Every form submitted while the builder is really stopped (its port closed, as after a crash):
// the user must read that nothing was saved, never a silent no-op or a bare "Failed to fetch".
const UNREACHABLE = "Could not reach the server";

let fake: FakeReplicate;
let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let agentId: string;
let baseId: string;

beforeAll(async () => {
  fake = await startFakeReplicate({ apiToken: "r8_e2e" });
  builder = await startTestBuilder({
    env: { REPLICATE_API_TOKEN: "r8_e2e", REPLICATE_BASE_URL: fake.baseUrl, ALLOW_PRIVATE_URLS: "1" },
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("offline@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: { name: "Support bot", provider: "openai", model: "gpt-4o-mini", instructions: "Help." },
  });
  agentId = ((await agent.json()) as { id: string }).id;
  const base = await builder.request("/api/knowledge-bases", {
    method: "POST",
    cookie,
    json: { name: "Handbook", embedding: { provider: "local", model: "feature-hashing-v1" } },
  });
  baseId = ((await base.json()) as { id: string }).id;
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

/** Runs `act` with the builder stopped, then starts it again on the same port and database. */
async function whileServerStopped(act: () => Promise<void>) {
  let failure: unknown;
  await builder.restart(async () => {
    try {
      await act();
    } catch (error) {
      failure = error;
    }
  });
  if (failure) throw failure;
}

const alertText = () => page.getByRole("alert").allTextContents();

describe("forms with the server stopped", () => {
  it("agent editor: says the save failed and keeps the saved name in the title", async () => {
    await page.goto(`${builder.url}/agents/${agentId}`);
    const name = page.getByRole("textbox", { name: "Name" });
    await expect.poll(() => name.inputValue()).toBe("Support bot");
    await name.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("Renamed bot");
    await whileServerStopped(async () => {
      await page.getByRole("button", { name: "Save" }).click();
      await expect.poll(alertText).toContainEqual(expect.stringContaining(UNREACHABLE));
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Support bot");
      await expect.poll(() => page.getByTestId("connection-banner").isVisible()).toBe(true);
      await screenshot(page, "failure-agent-save", { isDoc: true });
    });
    // Back up: saving again works and the banner goes away.
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Renamed bot");
    await expect.poll(() => page.getByTestId("connection-banner").count()).toBe(0);
  });

  it("new agent form", async () => {
    await page.goto(`${builder.url}/agents/new`);
    await page.getByRole("textbox", { name: "Name" }).fill("Never saved");
    await whileServerStopped(async () => {
      await page.getByRole("button", { name: "Create agent" }).click();
      await expect.poll(alertText).toContainEqual(expect.stringContaining(UNREACHABLE));
    });
    expect(new URL(page.url()).pathname).toBe("/agents/new");
  });

  it("provider credential form", async () => {
    await page.goto(`${builder.url}/settings`);
    const form = page.getByRole("form", { name: "Add a credential" });
    await form.getByLabel(/^API key/).fill("sk-offline-000000001");
    await whileServerStopped(async () => {
      await form.getByRole("button", { name: "Add credential" }).click();
      await expect
        .poll(() => form.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("API key form", async () => {
    await page.goto(`${builder.url}/settings`);
    const section = page.locator("#api-keys");
    await section.getByLabel("New key name").fill("offline key");
    await whileServerStopped(async () => {
      await section.getByRole("button", { name: "Create key" }).click();
      await expect
        .poll(() => section.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("webhook form", async () => {
    await page.goto(`${builder.url}/settings`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const form = page.getByRole("form", { name: "New endpoint" });
    await form.getByLabel("Endpoint URL").fill("https://example.com/hooks");
    await whileServerStopped(async () => {
      await form.getByRole("button", { name: "Add endpoint" }).click();
      await expect
        .poll(() => form.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("new knowledge base form", async () => {
    await page.goto(`${builder.url}/knowledge`);
    await page.getByRole("button", { name: "New knowledge base" }).click();
    const form = page.getByRole("form", { name: "New knowledge base" });
    await form.getByLabel("Name").fill("Never created");
    await whileServerStopped(async () => {
      await form.getByRole("button", { name: "Create knowledge base" }).click();
      await expect
        .poll(() => form.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("retrieval test form", async () => {
    await page.goto(`${builder.url}/knowledge/${baseId}`);
    const form = page.getByRole("form", { name: "Retrieval test" });
    await form.getByLabel("Query").fill("holidays");
    await whileServerStopped(async () => {
      await form.getByRole("button", { name: "Search" }).click();
      await expect
        .poll(() => form.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("generation form", async () => {
    await page.goto(`${builder.url}/generate`);
    const picker = page.getByRole("combobox", { name: /^Model/ });
    await expect
      .poll(() => picker.inputValue())
      .toBe(`${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`);
    await page.getByLabel("Prompt (required)").fill("a lighthouse");
    await whileServerStopped(async () => {
      await page.getByRole("button", { name: "Generate image" }).click();
      const form = page.getByRole("form", { name: "New generation" });
      await expect
        .poll(() => form.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("new workflow button", async () => {
    await page.goto(`${builder.url}/workflows`);
    await expect.poll(() => page.getByText("No workflows yet").isVisible()).toBe(true);
    await whileServerStopped(async () => {
      await page.getByRole("button", { name: "New workflow" }).click();
      await expect.poll(alertText).toContainEqual(expect.stringContaining(UNREACHABLE));
    });
  });

  it("sign-in form", async () => {
    const context = await browser.newContext();
    const signedOut = await context.newPage();
    await signedOut.goto(`${builder.url}/sign-in`);
    await signedOut.getByLabel("E-mail").fill("offline@example.com");
    await signedOut.getByLabel("Password").fill("correct horse battery");
    await whileServerStopped(async () => {
      await signedOut.getByRole("button", { name: "Sign in" }).click();
      await expect
        .poll(() => signedOut.getByRole("alert").allTextContents())
        .toContainEqual(expect.stringContaining(UNREACHABLE));
    });
    await context.close();
  });
});

describe("lists while the browser is offline", () => {
  it("show an error with a retry and a banner, not an endless Loading…, and recover", async () => {
    await page.goto(`${builder.url}/agents`);
    await expect.poll(() => page.getByText("Renamed bot").isVisible()).toBe(true);
    await page.context().setOffline(true);
    await page.getByRole("link", { name: "Knowledge" }).click();
    await expect.poll(() => page.getByTestId("connection-banner").textContent()).toContain("You are offline");
    await expect
      .poll(() => page.getByRole("alert").allTextContents(), { timeout: 10_000 })
      .toContainEqual(expect.stringContaining(UNREACHABLE));
    expect(await page.getByText("Loading knowledge bases").count()).toBe(0);
    await screenshot(page, "failure-offline-list");
    // Back online, what failed is asked again without the user doing anything.
    await page.context().setOffline(false);
    await expect.poll(() => page.getByText("Handbook").isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId("connection-banner").count()).toBe(0);
  });

  it("a list that failed with the server stopped loads on Try again", async () => {
    await page.goto(`${builder.url}/agents`);
    await expect.poll(() => page.getByText("Renamed bot").isVisible()).toBe(true);
    await whileServerStopped(async () => {
      await page.getByRole("link", { name: "Workflows" }).click();
      await expect
        .poll(() => page.getByRole("alert").allTextContents(), { timeout: 10_000 })
        .toContainEqual(expect.stringContaining(UNREACHABLE));
      expect(await page.getByTestId("connection-banner").textContent()).toContain("not answering");
    });
    await page.getByRole("button", { name: "Try again" }).click();
    await expect.poll(() => page.getByText("No workflows yet").isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId("connection-banner").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
