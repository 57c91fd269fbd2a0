import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeProvider, isAfterToolResult, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let fake: FakeProvider;
let weather: Server;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let agentId: string;

beforeAll(async () => {
  weather = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ forecast: "sunny", celsius: 31 }));
  });
  await new Promise<void>((resolve) => weather.listen(0, "127.0.0.1", resolve));
  const weatherUrl = `http://127.0.0.1:${(weather.address() as AddressInfo).port}/forecast`;
  fake = await startFakeOpenAI({
    apiKey: "sk-e2e-chat-000001",
    script: (turn) => {
      if (turn.tools.includes("weather") && !isAfterToolResult(turn)) {
        return { toolCalls: [{ name: "weather", input: { city: "Jakarta" } }] };
      }
      return { text: "It is sunny in Jakarta, 31 degrees." };
    },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  const { cookie } = await builder.signUp("chat@example.com", "correct horse battery");
  await signIn(page.context(), cookie, builder.url);
  await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "sk-e2e-chat-000001", base_url: fake.baseUrl },
  });
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: {
      name: "Weather bot",
      provider: "openai-compatible",
      model: "fake-model",
      instructions: "Use the weather tool.",
      tools: [
        {
          type: "http",
          name: "weather",
          description: "Today's forecast for a city",
          method: "GET",
          url: weatherUrl,
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    },
  });
  agentId = ((await agent.json()) as { id: string }).id;
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
  await new Promise((resolve) => weather?.close(resolve));
});

describe("agent chat", () => {
  it("streams the answer with the tool call shown inline, and keeps the conversation", async () => {
    await page.goto(`${builder.url}/agents/${agentId}`);
    await page.getByLabel("Message").fill("What's the weather in Jakarta?");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.getByTestId("message-assistant").last().textContent(), { timeout: 15_000 })
      .toContain("It is sunny in Jakarta");
    expect(await page.getByTestId("tool-call").count()).toBe(1);
    expect(await page.getByTestId("tool-call").textContent()).toContain("weather");
    await screenshot(page, "agent-chat", { isDoc: true });

    await page.reload();
    await expect.poll(() => page.getByLabel("Conversation").locator("option").count()).toBe(2);
    const conversation = await page.getByLabel("Conversation").locator("option").nth(1).getAttribute("value");
    await page.getByLabel("Conversation").selectOption(conversation ?? "");
    await expect.poll(() => page.getByTestId("message-user").count()).toBe(1);
    expect(await page.getByTestId("message-assistant").last().textContent()).toContain("sunny");
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});

describe("onboarding", () => {
  it("leads a new user from a missing key to a working chat", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const fresh = await context.newPage();
    const errors = collectPageErrors(fresh);
    const { cookie } = await builder.signUp("newcomer@example.com", "correct horse battery");
    await signIn(context, cookie, builder.url);

    await fresh.goto(`${builder.url}/agents`);
    const checklist = fresh.getByTestId("getting-started");
    await expect.poll(() => checklist.textContent()).toContain("0 of 4 done");
    await screenshot(fresh, "onboarding-checklist", { isDoc: true });
    await checklist.getByRole("link", { name: "Create an agent" }).click();

    await fresh.getByRole("textbox", { name: "Name" }).fill("Helper");
    await fresh.getByLabel("Provider").selectOption("openai-compatible");
    await fresh.getByRole("combobox", { name: "Model" }).fill("fake-model");
    // Named before anything fails, as a note and not an error.
    await expect
      .poll(() => fresh.getByTestId("provider-key-note").textContent())
      .toContain("No OpenAI-compatible");
    expect(await fresh.getByRole("alert").count()).toBe(0);
    await fresh.getByRole("button", { name: "Create agent" }).click();
    await fresh.waitForURL(/\/agents\/agt_/);

    await fresh.getByLabel("Message").fill("Hello?");
    await fresh.getByRole("button", { name: "Send" }).click();
    const missing = fresh.getByTestId("missing-key");
    await expect
      .poll(() => missing.textContent(), { timeout: 15_000 })
      .toContain("There is no API key for OpenAI-compatible");
    await screenshot(fresh, "onboarding-missing-key", { isDoc: true });
    await missing.getByRole("link").click();

    await fresh.waitForURL(/\/settings\?provider=openai-compatible/);
    const form = fresh.getByRole("form", { name: "Add a credential" });
    expect(await form.getByLabel("Provider").inputValue()).toBe("openai-compatible");
    await form.getByLabel(/^API key/).fill("sk-e2e-chat-000001");
    await form.getByLabel(/^Base URL/).fill(fake.baseUrl);
    await form.getByRole("button", { name: "Add credential" }).click();
    await expect
      .poll(() => fresh.getByRole("table", { name: "Credentials" }).textContent())
      .toContain("0001");

    await fresh.goBack();
    await fresh.waitForURL(/\/agents\/agt_/);
    await fresh.getByLabel("Message").fill("What's the weather in Jakarta?");
    await fresh.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => fresh.getByTestId("message-assistant").last().textContent(), { timeout: 15_000 })
      .toContain("It is sunny in Jakarta");

    await fresh.getByRole("link", { name: "Agents" }).click();
    await expect.poll(() => fresh.getByTestId("getting-started").textContent()).toContain("2 of 4 done");

    // The usage screen charts the chat's tokens by agent and lists the model beneath.
    await fresh.getByRole("link", { name: "Usage" }).click();
    const tokens = fresh.getByRole("figure", { name: "Tokens per day" });
    await expect.poll(() => tokens.locator("canvas").count()).toBeGreaterThan(0);
    expect(await tokens.locator(".u-legend").textContent()).toContain("Agent: Helper");
    expect(await fresh.getByTestId("usage-row").first().textContent()).toContain("fake-model");
    await screenshot(fresh, "usage", { isDoc: true });
    expect(await a11yViolations(fresh)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
