import { createHmac } from "node:crypto";
import { type FakeProvider, type FakeTurn, lastUserText, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../builder/test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { createBase, uploadOk, waitForDocument } from "../../builder/test/knowledge-support.ts";
import {
  click,
  createApp,
  HOSTILE_ANSWER,
  type HostSite,
  scriptableIn,
  startHostSite,
} from "./apps-support.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot } from "./browser.ts";

// The widget on someone else's site: a page served from another origin embeds embed.js; a person
// clicks the bubble, types at once, gets a streamed answer grounded in a knowledge base with its
// sources, rates it, reloads and finds the conversation. The same page on an origin the app does not
// allow gets a refusal and no answer, and an answer full of markup runs nothing.

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let slug: string;
let endUserSecret: string;
let allowed: HostSite;
let refused: HostSite;

const API_KEY = "sk-e2e-widget-0001";
const SATURDAY = "On Saturdays the Surabaya depot ships parcels to the islands by the 07:30 ferry.";
const ANSWER = "The **Surabaya** depot ships on Saturdays, by the 07:30 ferry.";
const HOST = "app-chat-widget";

/** Tool results the model has seen since the latest user message. */
function resultsThisTurn(turn: FakeTurn) {
  const lastUser = turn.messages.findLastIndex((message) => message.role === "user");
  return turn.messages.slice(lastUser + 1).flatMap((message) => message.toolResults);
}

/** The host page: the snippet as a customer pastes it, and styles that would break a careless widget. */
function hostPage(url: URL): string {
  const attributes = [
    `src="${builder.url}/embed.js"`,
    `data-app="${slug}"`,
    url.searchParams.get("position") ? `data-position="${url.searchParams.get("position")}"` : "",
    url.searchParams.get("open") ? `data-open="${url.searchParams.get("open")}"` : "",
    url.searchParams.get("user") ? `data-user-token="${url.searchParams.get("user")}"` : "",
    "async",
  ];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Island Parcels</title>
<style>
  body { color: rgb(200, 0, 0); font: 30px/1 serif; }
  button, textarea { background: rgb(0, 200, 0) !important; border: 9px solid black !important; }
  .status, .msg { font-style: normal; display: inline; }
</style></head>
<body><main><h1>Island Parcels</h1><p class="status" id="host-status">We ship to every island.</p></main>
<script ${attributes.filter(Boolean).join(" ")}></script></body></html>`;
}

/** A JWT (HS256) as a host site's server signs one for its signed-in user. */
function signEndUser(secret: string, sub: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${encode({ alg: "HS256", typ: "JWT" })}.${encode({ sub, name: "Ayu", exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

/** The widget's host element; Playwright's locators reach into its open shadow root. */
const widget = () => page.locator(HOST);
const bubble = () => widget().getByRole("button", { name: /^(Open|Close) chat$/ });
const composer = () => widget().getByRole("textbox", { name: "Message" });
const answers = () => widget().locator("[data-role=assistant]");

/** The aria-label of what has the keyboard focus inside the widget. */
function focusedInWidget(): Promise<string | null> {
  return page.evaluate(
    `document.querySelector("${HOST}").shadowRoot.activeElement?.getAttribute("aria-label") ?? null`,
  ) as Promise<string | null>;
}

async function openWidget() {
  await expect.poll(() => bubble().count()).toBe(1);
  await click(page, bubble());
  await expect.poll(focusedInWidget).toBe("Message");
}

async function lastAnswerText(): Promise<string> {
  const count = await answers().count();
  return count === 0
    ? ""
    : ((await answers()
        .nth(count - 1)
        .textContent()) ?? "");
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: API_KEY,
    script: (turn) => {
      if (lastUserText(turn).includes("payload")) return { text: HOSTILE_ANSWER };
      const [found] = resultsThisTurn(turn);
      if (!found) return { toolCalls: [{ name: "knowledge_search", input: { query: lastUserText(turn) } }] };
      return { text: ANSWER };
    },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  ({ cookie } = await builder.signUp("widget@example.com", "correct horse battery"));
  const base = await createBase(builder, cookie, { name: "Operations" });
  const document = await uploadOk(builder, cookie, {
    knowledgeBaseId: base,
    name: "shipping.md",
    bytes: `# Shipping guide\n\n## Weekend service\n\n${SATURDAY}\n`,
    type: "text/markdown",
  });
  expect((await waitForDocument(builder, cookie, document.id)).status).toBe("ready");
  const agentId = await createAgentOnFake(builder, cookie, fake, API_KEY, {
    name: "Dispatcher",
    model: "fake-model",
    instructions: "Answer from the knowledge base.",
    knowledge_base_ids: [base],
    tools: [{ type: "knowledge_search" }],
  });
  allowed = await startHostSite(hostPage);
  refused = await startHostSite(hostPage);
  ({ slug, end_user_secret: endUserSecret } = await createApp(builder, cookie, {
    agent_id: agentId,
    title: "Island Parcels help",
    theme: { color: "#0f766e", dark: false },
    starter_prompts: ["Which depot ships on Saturdays?"],
    allowed_origins: [allowed.origin],
  }));
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  pageErrors = collectPageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await allowed?.close();
  await refused?.close();
  await builder?.stop();
  await fake?.close();
});

describe("the widget on an allowed site", () => {
  it("opens from the bubble with the input focused, typing accepted before the server has answered anything", async () => {
    // The app's config and the session are held back: the input must not wait for them.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`${builder.url}/api/public/**`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(allowed.origin);
    await openWidget();
    await page.keyboard.type("Which depot");
    expect(await composer().inputValue()).toBe("Which depot");
    release();
    await page.unrouteAll({ behavior: "wait" });

    // The app's theme and title arrive in the background.
    await expect.poll(() => widget().getByRole("heading", { name: "Island Parcels help" }).count()).toBe(1);
    const header = widget().locator(".head");
    expect(await header.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      "rgb(15, 118, 110)",
    );
    expect(await widget().getByRole("button", { name: "Which depot ships on Saturdays?" }).count()).toBe(1);
  });

  it("keeps the page's styles out and its own in", async () => {
    const panelText = widget().locator(".log");
    // The host's body is red serif at 30px; the widget resets what would be inherited.
    expect(await panelText.evaluate((element) => getComputedStyle(element).color)).not.toBe("rgb(200, 0, 0)");
    expect(await panelText.evaluate((element) => getComputedStyle(element).fontFamily)).not.toBe("serif");
    expect(await bubble().evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      "rgb(15, 118, 110)",
    );
    // Our .status class (italic) does not reach the host's own .status paragraph.
    expect(
      await page.locator("#host-status").evaluate((element) => getComputedStyle(element).fontStyle),
    ).toBe("normal");
  });

  it("sends with Enter (Shift+Enter is a new line) and streams an answer with numbered sources", async () => {
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("ships on Saturdays?");
    expect(await composer().inputValue()).toBe("Which depot\nships on Saturdays?");
    const streamed = page.waitForResponse(
      (response) =>
        response.url().endsWith(`/api/public/apps/${slug}/chat`) && response.request().method() === "POST",
    );
    await page.keyboard.press("Enter");
    const response = await streamed;
    expect(response.headers()["content-type"]).toMatch(/^text\/event-stream/);
    expect(response.request().headers().accept).toBe("text/event-stream");
    expect(await composer().inputValue()).toBe("");
    await expect.poll(lastAnswerText, { timeout: 20_000 }).toContain("The Surabaya depot ships on Saturdays");
    // Markdown rendered: the bold word is an element, not asterisks.
    expect(await answers().last().locator("strong").textContent()).toBe("Surabaya");
    expect(await widget().locator("[data-role=user]").last().textContent()).toBe(
      "Which depot\nships on Saturdays?",
    );

    const source = answers().last().getByRole("button", { name: "Source 1: shipping.md" });
    await expect.poll(() => source.count()).toBe(1);
    expect(await source.getAttribute("aria-expanded")).toBe("false");
    await click(page, source);
    expect(await source.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => answers().last().locator(".passage").textContent()).toContain(SATURDAY);
    await screenshot(page, "apps-widget-answer", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("takes a thumbs up with a comment on the answer, stored for the end user", async () => {
    const like = answers().last().getByRole("button", { name: "Good answer" });
    await click(page, like);
    await expect.poll(() => like.getAttribute("aria-pressed")).toBe("true");
    await click(page, answers().last().getByRole("textbox", { name: "Comment (optional)" }));
    await page.keyboard.type("Exactly what I needed");
    await click(page, answers().last().getByRole("button", { name: "Send feedback" }));
    await expect
      .poll(() => answers().last().getByRole("status").textContent())
      .toBe("Thanks for your feedback.");

    // What the API now says of the answer, asked as the same end user.
    const token = (await page.evaluate(`localStorage.getItem("app-chat:${slug}:token")`)) as string;
    const conversation = (await page.evaluate(
      `localStorage.getItem("app-chat:${slug}:conversation")`,
    )) as string;
    expect(conversation).toMatch(/^conv_/);
    const messages = await fetch(
      `${builder.url}/api/public/apps/${slug}/conversations/${conversation}/messages`,
      { headers: { authorization: `Bearer ${token}`, origin: allowed.origin } },
    );
    const page1 = (await messages.json()) as { data: { role: string; feedback: unknown }[] };
    expect(page1.data[0]).toMatchObject({
      role: "assistant",
      feedback: { rating: "like", comment: "Exactly what I needed" },
    });
  });

  it("after a reload, finds the conversation again, its answer, sources and rating", async () => {
    await page.reload();
    await openWidget();
    await expect.poll(lastAnswerText).toContain("The Surabaya depot ships on Saturdays");
    expect(await widget().locator("[data-role=user]").count()).toBe(1);
    expect(
      await answers().last().getByRole("button", { name: "Good answer" }).getAttribute("aria-pressed"),
    ).toBe("true");
    await click(page, answers().last().getByRole("button", { name: "Source 1: shipping.md" }));
    await expect.poll(() => answers().last().locator(".passage").textContent()).toContain(SATURDAY);

    // The list of this end user's conversations holds it, marked as the current one.
    await click(page, widget().getByRole("button", { name: "Conversations" }));
    const list = widget().getByRole("navigation", { name: "Conversations" });
    await expect.poll(() => list.locator("li button").count()).toBe(1);
    expect(await list.locator("li button").first().getAttribute("aria-current")).toBe("true");
    // Escape folds the list away; a second Escape closes the panel and gives the bubble the focus.
    await page.keyboard.press("Escape");
    await expect.poll(() => list.isVisible()).toBe(false);
    expect(await composer().isVisible()).toBe(true);
    expect(await focusedInWidget()).toBe("Conversations");
    await page.keyboard.press("Escape");
    await expect.poll(() => composer().isVisible()).toBe(false);
    expect(await focusedInWidget()).toBe("Open chat");
  });

  it("renders an answer full of markup as text: no element from it, nothing runs, the link is inert", async () => {
    await click(page, bubble());
    await click(page, widget().getByRole("button", { name: "New conversation" }));
    await expect.poll(() => answers().count()).toBe(0);
    await page.keyboard.type("Show me the payload");
    await page.keyboard.press("Enter");
    await expect.poll(lastAnswerText, { timeout: 20_000 }).toContain("Here you go: <img src=x onerror=");
    const answer = answers().last();
    expect(await answer.textContent()).toContain("<script>window.__pwned=1</script>");
    expect(await scriptableIn(page, "[data-role=assistant] .md", HOST)).toEqual([]);
    // The javascript: link is only its word; click it anyway, and the image's link too.
    await click(page, answer.getByText("x", { exact: true }));
    await click(page, answer.getByText("y", { exact: true }));
    expect(await answer.getByRole("link").allTextContents()).toEqual(["Image: tracker"]);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(browser.contexts()[0]?.pages().length).toBe(1);
  });

  it("opens at load on the left when the snippet says so, without taking the page's focus", async () => {
    await page.goto(`${allowed.origin}/?position=bottom-left&open=true`);
    await expect.poll(() => composer().isVisible()).toBe(true);
    const box = await bubble().boundingBox();
    expect(box?.x ?? 9999).toBeLessThan(100);
    expect(await page.evaluate("document.activeElement?.tagName")).toBe("BODY");
  });
});

describe("the widget with the host's signed-in user (data-user-token)", () => {
  it("talks as that user: no anonymous session, not the anonymous visitor's conversation, the user's own list", async () => {
    const token = signEndUser(endUserSecret, "customer-42");
    const sessions: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().endsWith("/session")) sessions.push(request.url());
    };
    page.on("request", onRequest);
    // The browser still remembers the anonymous visitor's conversation: it is not this user's.
    expect(await page.evaluate(`localStorage.getItem("app-chat:${slug}:conversation")`)).toMatch(/^conv_/);
    await page.goto(`${allowed.origin}/?user=${token}`);
    await openWidget();
    await click(page, widget().getByRole("button", { name: "Conversations" }));
    await expect.poll(() => widget().getByText("No conversations yet.").count()).toBe(1);
    expect(await answers().count()).toBe(0);
    await page.keyboard.press("Escape");
    await click(page, composer());
    await page.keyboard.type("Which depot ships on Saturdays?");
    await page.keyboard.press("Enter");
    await expect.poll(lastAnswerText, { timeout: 20_000 }).toContain("The Surabaya depot ships on Saturdays");
    page.off("request", onRequest);
    expect(sessions).toEqual([]);

    const listed = await fetch(`${builder.url}/api/public/apps/${slug}/conversations`, {
      headers: { authorization: `Bearer ${token}`, origin: allowed.origin },
    });
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});

describe("the widget on a site the app does not allow", () => {
  it("shows a refusal in the panel, and no message gets an answer", async () => {
    const turnsBefore = fake.turns.length;
    await page.goto(refused.origin);
    await expect.poll(() => bubble().count()).toBe(1);
    await click(page, bubble());
    const alert = widget().getByRole("alert");
    await expect.poll(() => alert.textContent()).toBe("This site is not allowed to use this chat.");
    await screenshot(page, "apps-widget-refused");
    // The message box takes nothing: clicking it and typing leaves it empty, and Enter sends nothing.
    expect(await composer().isDisabled()).toBe(true);
    await click(page, composer());
    await page.keyboard.type("Anyone there?");
    await page.keyboard.press("Enter");
    expect(await composer().inputValue()).toBe("");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await answers().count()).toBe(0);
    expect(fake.turns.length).toBe(turnsBefore);

    // The API refuses the origin itself, whatever a page's script would try.
    const direct = await fetch(`${builder.url}/api/public/apps/${slug}/session`, {
      method: "POST",
      headers: { origin: refused.origin },
    });
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { error: { code: string } }).error.code).toBe("origin_not_allowed");
  });

  it("raised no errors in the pages", () => {
    // A refused CORS request logs to the console, not as a page error; anything else is a bug.
    expect(pageErrors).toEqual([]);
  });
});
