import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeProvider, isAfterToolResult, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot } from "./browser.ts";

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
  const [name, value] = cookie.split("=");
  await page.context().addCookies([{ name: name ?? "", value: value ?? "", url: builder.url }]);
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
    await screenshot(page, "agent-chat");

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
