import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let agentId: string;
let appId: string;

const SLUG = "help-desk-e2e";
const COMPLAINT = "Too vague: no tracking link.";
const ECHO_GRAPH = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    { id: "end", type: "end", position: { x: 300, y: 0 }, data: { outputs: [{ name: "ok", value: "yes" }] } },
  ],
  edges: [{ id: "e", source: "start", target: "end" }],
};

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: "sk-e2e-apps-000001",
    script: () => ({ text: "Sorry about the delay; your order ships tomorrow." }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  // Every confirmation (revoke a key, delete the app) is answered yes.
  page.on("dialog", (dialog) => void dialog.accept());
  ({ cookie } = await builder.signUp("apps@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "sk-e2e-apps-000001", base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: {
      name: "Help desk",
      provider: "openai-compatible",
      model: "fake-model",
      instructions: "Answer customers about their orders.",
    },
  });
  agentId = ((await agent.json()) as { id: string }).id;
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

/** Calls the app's public API as one of its end users would, from the builder's own origin. */
async function asEndUser(path: string, token: string, json: unknown) {
  const response = await builder.request(`/api/public/apps/${SLUG}${path}`, {
    method: "POST",
    bearer: token,
    json,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response.json() as Promise<Record<string, unknown>>;
}

async function endUserConversation(message: string, rating: "like" | "dislike", comment: string) {
  const session = (await asEndUser("/session", "", undefined)) as { token: string; end_user_id: string };
  const answer = (await asEndUser("/chat", session.token, { message })) as { message: { id: string } };
  await asEndUser(`/messages/${answer.message.id}/feedback`, session.token, { rating, comment });
  return session.end_user_id;
}

describe("apps in the studio", () => {
  it("publishes an agent from its editor with notes; editing brings the unpublished changes back", async () => {
    await page.goto(`${builder.url}/agents/${agentId}`);
    const panel = page.getByRole("region", { name: "Publish" });
    const unpublished = panel.getByTestId("unpublished-changes");
    await expect.poll(() => unpublished.count()).toBe(1);
    expect(await panel.getByTestId("published-version").textContent()).toContain("Never published");

    await panel.getByRole("button", { name: "Publish…" }).click();
    await panel.getByLabel("Notes (optional)").click();
    await page.keyboard.type("First release");
    await panel.getByRole("button", { name: "Publish version 1" }).click();
    await expect.poll(() => panel.getByRole("status").textContent()).toContain("Published version 1");
    await expect.poll(() => unpublished.count()).toBe(0);
    expect(await panel.getByTestId("published-version").textContent()).toContain("Version 1, published");
    expect(await panel.getByTestId("version").first().textContent()).toContain("First release");
    await screenshot(page, "apps-publish", { isDoc: true });

    const instructions = page.getByRole("textbox", { name: "Instructions" });
    await instructions.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" Be brief.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(() => unpublished.count()).toBe(1);
  });

  it("creates an app from the Apps screen and shows its secret once, its snippets and link", async () => {
    await page.getByRole("link", { name: "Apps", exact: true }).click();
    await page.waitForURL(/\/apps$/);
    await page.getByRole("button", { name: "New app" }).click();
    const form = page.getByRole("form", { name: "New app" });
    await form.getByLabel("Publish").selectOption({ label: "Help desk" });
    await form.getByLabel("Title").click();
    await page.keyboard.type("Order help");
    await form.getByLabel("Slug").click();
    await page.keyboard.type(SLUG);
    await form.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(/\/apps\/app_/);
    appId = new URL(page.url()).pathname.split("/").pop() ?? "";

    const secret = page.getByTestId("end-user-secret");
    await expect.poll(() => secret.count()).toBe(1);
    const shown = (await secret.textContent()) ?? "";
    const hint = ((await page.getByTestId("secret-hint").textContent()) ?? "").replaceAll("…", "");
    expect(shown.length).toBeGreaterThan(20);
    expect(hint.length).toBeGreaterThan(0);
    expect(shown.endsWith(hint)).toBe(true);

    expect(await page.getByTestId("script-snippet").textContent()).toContain(`data-app="${SLUG}"`);
    expect(await page.getByTestId("script-snippet").textContent()).toContain("/embed.js");
    expect(await page.getByTestId("iframe-snippet").textContent()).toContain(`/a/${SLUG}`);
    const webLink = page.getByTestId("web-url");
    expect(await webLink.getAttribute("href")).toBe(`${builder.url}/a/${SLUG}`);
    expect(await webLink.getAttribute("target")).toBe("_blank");
    await screenshot(page, "apps-created", { isDoc: true });

    await page.getByRole("region", { name: "End-user secret" }).getByRole("button", { name: "Done" }).click();
    expect(await secret.count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId("secret-hint").count()).toBe(1);
    expect(await secret.count()).toBe(0);
  });

  it("allows an origin, checked as the API checks it, and saves it", async () => {
    const settings = page.getByRole("form", { name: "App settings" });
    const origin = settings.getByLabel("Add to allowed origins");
    await origin.click();
    await page.keyboard.type("https://Shop.Example.com/");
    await expect.poll(() => settings.getByRole("alert").textContent()).toContain("Leave out the path");
    await page.keyboard.press("Backspace");
    expect(await settings.getByRole("alert").count()).toBe(0);
    await page.keyboard.press("Enter");
    await expect.poll(() => settings.getByTestId("allowed-origin-item").count()).toBe(1);
    expect(await settings.getByTestId("allowed-origin-item").textContent()).toContain(
      "https://shop.example.com",
    );
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => settings.getByRole("status").textContent()).toContain("Saved");

    const saved = await builder.request(`/api/apps/${appId}`, { cookie });
    expect(((await saved.json()) as { allowed_origins: string[] }).allowed_origins).toEqual([
      "https://shop.example.com",
    ]);
  });

  it("creates an app key, shown once, that reaches the app; revoked, it reaches nothing", async () => {
    const keys = page.getByRole("region", { name: "App keys" });
    await keys.getByLabel("New key name").click();
    await page.keyboard.type("Backend");
    await page.keyboard.press("Enter");
    const revealed = keys.getByTestId("new-app-key");
    await expect.poll(() => revealed.count()).toBe(1);
    const key = (await revealed.textContent()) ?? "";
    await expect.poll(() => keys.getByTestId("app-key-row").count()).toBe(1);
    const asServer = () =>
      builder.request(`/api/public/apps/${SLUG}/conversations`, {
        bearer: key,
        headers: { "x-end-user": "customer-7" },
      });
    expect((await asServer()).status).toBe(200);

    await keys.getByRole("button", { name: "Done" }).click();
    await keys.getByRole("button", { name: "Revoke the app key Backend" }).click();
    await expect.poll(() => keys.getByTestId("app-key-row").count()).toBe(0);
    expect((await asServer()).status).toBe(401);
  });

  it("previews the widget, or says plainly why it cannot", async () => {
    const preview = page.getByRole("region", { name: "Live preview" });
    await preview.getByRole("button", { name: "Show preview" }).click();
    // Before the widget ships, /embed.js is not served: the panel says so. After, its script is in the box.
    const outcome = async () =>
      (await preview.getByTestId("preview-unavailable").count()) +
      (await preview.locator(`[data-testid="widget-preview"] script[data-app="${SLUG}"]`).count());
    await expect.poll(outcome).toBe(1);
    await preview.getByRole("button", { name: "Hide preview" }).click();
    expect(await preview.getByTestId("widget-preview").count()).toBe(0);
  });

  it("lists end users' conversations with their feedback, filtered by rating and end user", async () => {
    const unhappy = await endUserConversation("Where is my order?", "dislike", COMPLAINT);
    const happy = await endUserConversation("Can I change my address?", "like", "Thanks!");

    await page.reload();
    const conversations = page.getByRole("region", { name: "Conversations" });
    const rows = conversations.getByTestId("conversation-row");
    await expect.poll(() => rows.count()).toBe(2);

    const rating = conversations.getByRole("group", { name: "Rating" });
    await rating.getByText("Disliked", { exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(unhappy);
    await rows.first().getByRole("button", { name: "Open" }).click();
    const feedback = conversations.getByTestId("feedback");
    await expect.poll(() => feedback.count()).toBe(1);
    expect(await feedback.textContent()).toContain("Disliked");
    expect(await feedback.textContent()).toContain("End user");
    expect(await feedback.textContent()).toContain(COMPLAINT);
    expect(await conversations.getByTestId("app-message-user").textContent()).toContain("Where is my order?");
    await feedback.scrollIntoViewIfNeeded();
    await screenshot(page, "apps-conversations", { isDoc: true });

    await rating.getByText("Liked", { exact: true }).click();
    await expect
      .poll(async () => (await rows.count()) === 1 && (await rows.first().textContent())?.includes(happy))
      .toBe(true);

    await rating.getByText("All", { exact: true }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await conversations.getByLabel("End user").click();
    await page.keyboard.type(unhappy);
    await page.keyboard.press("Enter");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(unhappy);
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("opens the app from its agent's Publish panel, and deletes it after asking", async () => {
    await page.goto(`${builder.url}/agents/${agentId}`);
    await page.getByRole("region", { name: "Publish" }).getByRole("link", { name: "Open app" }).click();
    await page.waitForURL(new RegExp(`/apps/${appId}$`));
    await page.getByRole("button", { name: "Delete app" }).click();
    await page.waitForURL(/\/apps$/);
    await expect.poll(() => page.getByText("No apps yet").count()).toBe(1);
  });

  it("publishes a workflow from its editor and creates its app from the Publish panel", async () => {
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: { name: "Order lookup", graph: ECHO_GRAPH },
    });
    const workflowId = ((await created.json()) as { id: string }).id;
    await page.goto(`${builder.url}/workflows/${workflowId}`);
    const panel = page.getByRole("region", { name: "Publish" });
    await expect.poll(() => panel.getByTestId("unpublished-changes").count()).toBe(1);
    await panel.getByRole("button", { name: "Publish…" }).click();
    await panel.getByRole("button", { name: "Publish version 1" }).click();
    await expect.poll(() => panel.getByTestId("unpublished-changes").count()).toBe(0);
    expect(await panel.getByTestId("version").count()).toBe(1);

    await panel.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(/\/apps\/app_/);
    await expect.poll(() => page.getByTestId("end-user-secret").count()).toBe(1);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Order lookup");
    expect(await page.getByRole("region", { name: "Conversations" }).count()).toBe(0);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
