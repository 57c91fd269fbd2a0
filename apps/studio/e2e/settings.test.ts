import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type FakeProvider,
  type FakeReplicate,
  helloScript,
  startFakeOpenAI,
  startFakeReplicate,
} from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

const API_KEY = "sk-e2e-settings-4242";
const REPLICATE_TOKEN = "r8_e2eSettingsReplicateToken-5151";

let builder: TestBuilder;
let fake: FakeProvider;
let replicate: FakeReplicate;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY, script: helloScript });
  replicate = await startFakeReplicate({ apiToken: REPLICATE_TOKEN });
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("thanks");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  builder = await startTestBuilder({
    env: { ALLOW_PRIVATE_URLS: "1", REPLICATE_BASE_URL: replicate.baseUrl },
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("settings@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
  await replicate?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("settings", () => {
  it("stores a provider key, shows it only masked, and checks it against the provider", async () => {
    await page.goto(`${builder.url}/settings`);
    await expect.poll(() => page.getByText("No credentials").isVisible()).toBe(true);
    await page.getByRole("combobox", { name: /^Provider/ }).selectOption("openai-compatible");
    await page.getByLabel("API key", { exact: true }).fill(API_KEY);
    await page.getByLabel("Base URL (required)").fill(fake.baseUrl);
    await page.getByRole("button", { name: "Add credential" }).click();
    const row = page.getByTestId("credential-row");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("4242");
    expect(await page.content()).not.toContain(API_KEY);
    expect(await page.getByLabel("API key", { exact: true }).inputValue()).toBe("");

    await row.getByRole("button", { name: /^Test/ }).click();
    await expect.poll(() => row.textContent()).toContain("Works: 1 model listed");
    await screenshot(page, "settings-credentials", { isDoc: true });
  });

  it("stores a Replicate token without a base URL and checks it with its account", async () => {
    await page.getByRole("combobox", { name: /^Provider/ }).selectOption("replicate");
    expect(await page.getByLabel(/^Base URL/).count()).toBe(0);
    await page.getByLabel("API token", { exact: true }).fill(REPLICATE_TOKEN);
    await page.getByRole("button", { name: "Add credential" }).click();
    const row = page.getByTestId("credential-row").filter({ hasText: "Replicate" });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("r8_…5151");
    expect(await page.content()).not.toContain(REPLICATE_TOKEN);
    await row.getByRole("button", { name: /^Test/ }).click();
    await expect.poll(() => row.textContent()).toContain("Works: the account fake-account-1");
  });

  it("registers a webhook, shows its secret once, and lists a signed delivery it can replay", async () => {
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByLabel("Endpoint URL").fill(receiverUrl);
    await page.getByLabel("All events, including future ones").uncheck();
    await page.getByLabel("A document is ready").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.getByTestId("webhook-secret").textContent();
    expect(secret).toMatch(/^whsec_/);
    await screenshot(page, "settings-webhook-secret");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByTestId("webhook-secret").count()).toBe(0);
    const webhook = page.getByTestId("webhook");
    await expect.poll(() => webhook.textContent()).toContain("document.ready");

    // A ready document is the event; the receiver gets it signed.
    const base = (await (
      await builder.request("/api/knowledge-bases", { method: "POST", cookie, json: { name: "Hooks" } })
    ).json()) as { id: string };
    const form = new FormData();
    form.append("knowledge_base_id", base.id);
    form.append("file", new Blob(["# Notes\n\nThe hook fired."], { type: "text/markdown" }), "notes.md");
    const upload = await builder.request("/api/rag/upload", { method: "POST", cookie, body: form });
    expect(upload.status).toBe(202);
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
    expect(received[0]?.body).toContain("document.ready");

    await webhook.getByRole("button", { name: "Deliveries" }).click();
    const delivery = page.getByTestId("delivery-row");
    await expect.poll(() => delivery.first().textContent()).toContain("delivered");
    expect(await delivery.first().textContent()).toContain("HTTP 200");
    await delivery.first().getByRole("button", { name: "Replay" }).click();
    await expect.poll(() => received.length, { timeout: 20_000 }).toBe(2);
    await delivery.first().getByRole("button", { name: "Attempts" }).click();
    await expect.poll(() => page.getByTestId("attempt").count()).toBe(2);
    await screenshot(page, "settings-webhook-deliveries");

    await webhook.getByRole("button", { name: "Disable" }).click();
    await expect.poll(() => webhook.textContent()).toContain("Disabled");
  });

  it("rotates a webhook's secret and shows the new one once", async () => {
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("webhook").getByRole("button", { name: "Rotate secret" }).click();
    const secret = await page.getByTestId("webhook-secret").textContent();
    expect(secret).toMatch(/^whsec_/);
    await expect
      .poll(() => page.getByTestId("webhook").textContent())
      .toContain("previous secret also signs");
    await page.getByRole("button", { name: "Done" }).click();
  });

  it("lists API keys a page at a time, and 'Load more keys' brings the rest", async () => {
    const total = 52;
    for (let i = 0; i < total; i++) {
      const created = await builder.request("/api/keys", {
        method: "POST",
        cookie,
        json: { name: `paged ${i}` },
      });
      expect(created.status).toBe(201);
    }
    await page.goto(`${builder.url}/settings`);
    const rows = page.getByTestId("api-key-row");
    await expect.poll(() => rows.count()).toBe(50);
    // Newest first: the last key made heads the first page, the first two wait behind "Load more".
    expect(await rows.first().textContent()).toContain(`paged ${total - 1}`);
    await page.getByRole("button", { name: "Load more keys" }).click();
    await expect.poll(() => rows.count()).toBe(total);
    expect(await page.getByRole("button", { name: "Load more keys" }).count()).toBe(0);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
