import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../builder/test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { createWorkflow, edge, node } from "../../builder/test/workflow-support.ts";
import { click, createApp, HOSTILE_ANSWER, scriptableIn } from "./apps-support.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot } from "./browser.ts";

// The hosted web app at /a/{slug} on a phone (375 × 667): an agent's chat with its conversations in a
// sidebar that folds away, and a workflow's form with its outputs. Its page runs under a strict
// Content-Security-Policy, and an answer full of markup runs nothing.

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let agentSlug: string;
let workflowSlug: string;

const API_KEY = "sk-e2e-webapp-0001";
/** A long unbroken token: it must wrap, not push the page sideways. */
const LONG_URL = `https://example.com/${"a".repeat(300)}`;

/** Whether anything on the page is wider than the window (sideways scrolling on a phone). */
function overflowsSideways(): Promise<boolean> {
  return page.evaluate("document.documentElement.scrollWidth > window.innerWidth") as Promise<boolean>;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: API_KEY,
    script: (turn) =>
      lastUserText(turn).includes("payload")
        ? { text: HOSTILE_ANSWER }
        : { text: `Here is a **summary** of ${lastUserText(turn)}.\n\n- first\n- second\n\nSee ${LONG_URL}` },
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  ({ cookie } = await builder.signUp("webapp@example.com", "correct horse battery"));
  const agentId = await createAgentOnFake(builder, cookie, fake, API_KEY, { model: "fake-model" });
  ({ slug: agentSlug } = await createApp(builder, cookie, {
    agent_id: agentId,
    title: "Trip planner",
    theme: { color: "#7c3aed", dark: true },
    starter_prompts: ["Plan a weekend in Bali"],
  }));
  const workflowId = await createWorkflow(builder, cookie, {
    nodes: [
      node("start", "start", {
        inputs: [
          { name: "topic", type: "string", required: true, description: "What to write about" },
          { name: "count", type: "number", required: false },
          { name: "loud", type: "boolean", required: false },
          { name: "meta", type: "object", required: false },
        ],
      }),
      node("done", "end", {
        outputs: [
          { name: "summary", value: "**{{start.topic}}** × {{start.count}}" },
          { name: "meta", value: "{{start.meta}}" },
        ],
      }),
    ],
    edges: [edge("start", "done")],
  });
  ({ slug: workflowSlug } = await createApp(builder, cookie, {
    workflow_id: workflowId,
    title: "Headline maker",
    description: "Writes a headline.",
  }));
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  page.setDefaultTimeout(10_000);
  pageErrors = collectPageErrors(page);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

describe("an agent's web app on a phone", () => {
  it("is served under a strict Content-Security-Policy and opens with the input focused", async () => {
    const response = await page.goto(`${builder.url}/a/${agentSlug}`);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'self'");
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
    await expect.poll(() => page.title()).toBe("Trip planner");
    await expect
      .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
      .toBe("Message");
    // The sidebar is folded away on a phone; the starter prompt is offered.
    expect(await page.getByRole("navigation", { name: "Conversations" }).isVisible()).toBe(false);
    expect(await page.getByRole("button", { name: "Plan a weekend in Bali" }).isVisible()).toBe(true);
    expect(await overflowsSideways()).toBe(false);
  });

  it("answers a starter prompt with streamed markdown that wraps within the screen", async () => {
    await click(page, page.getByRole("button", { name: "Plan a weekend in Bali" }));
    const answer = page.locator("[data-role=assistant]").last();
    await expect.poll(() => answer.textContent(), { timeout: 20_000 }).toContain("Here is a summary of");
    expect(await answer.locator("strong").textContent()).toBe("summary");
    expect(await answer.locator("li").allTextContents()).toEqual(["first", "second"]);
    expect(await answer.getByRole("link").getAttribute("href")).toBe(LONG_URL);
    expect(await overflowsSideways()).toBe(false);
    const box = await answer.boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(375);
    await screenshot(page, "apps-webapp-phone", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("lists the conversation in the sidebar, which opens over the chat and closes after a choice", async () => {
    await click(page, page.getByRole("button", { name: "Conversations" }));
    const sidebar = page.getByRole("navigation", { name: "Conversations" });
    await expect.poll(() => sidebar.isVisible()).toBe(true);
    await expect.poll(() => sidebar.locator("li button").count()).toBe(1);
    const box = await sidebar.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 999) <= 375).toBe(true);
    await click(page, sidebar.getByRole("button", { name: "New conversation" }));
    await expect.poll(() => sidebar.isVisible()).toBe(false);
    await expect.poll(() => page.locator("[data-role=assistant]").count()).toBe(0);
    await click(page, page.getByRole("button", { name: "Conversations" }));
    await click(page, sidebar.locator("li button").first());
    await expect.poll(() => page.locator("[data-role=assistant]").count()).toBe(1);
  });

  it("renders an answer full of markup as text, and nothing from it runs", async () => {
    await click(page, page.getByRole("textbox", { name: "Message" }));
    await page.keyboard.type("Send the payload");
    await page.keyboard.press("Enter");
    const answer = page.locator("[data-role=assistant]").last();
    await expect
      .poll(() => answer.textContent(), { timeout: 20_000 })
      .toContain("<script>window.__pwned=1</script>");
    expect(await scriptableIn(page, "[data-role=assistant] .md")).toEqual([]);
    await click(page, answer.getByText("x", { exact: true }));
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(page.url()).toBe(`${builder.url}/a/${agentSlug}`);
  });
});

describe("a workflow's web app on a phone", () => {
  it("builds the form from the Start inputs and refuses bad JSON at its field", async () => {
    await page.goto(`${builder.url}/a/${workflowSlug}`);
    await expect.poll(() => page.getByRole("heading", { name: "Headline maker" }).count()).toBe(1);
    expect(await page.getByText("What to write about").isVisible()).toBe(true);
    expect(await page.getByLabel("count").getAttribute("type")).toBe("number");
    expect(await page.getByLabel("loud").getAttribute("type")).toBe("checkbox");

    await click(page, page.getByRole("button", { name: "Run" }));
    const topic = page.getByLabel("topic (required)");
    await expect.poll(() => topic.getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate("document.activeElement?.id")).toBe(await topic.getAttribute("id"));

    await page.keyboard.type("Island ferries");
    await click(page, page.getByLabel("count"));
    await page.keyboard.type("3");
    await click(page, page.getByLabel("meta"));
    await page.keyboard.type('{"lang": "en"');
    await click(page, page.getByRole("button", { name: "Run" }));
    const meta = page.getByLabel("meta");
    await expect.poll(() => meta.getAttribute("aria-invalid")).toBe("true");
    const described = (await meta.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`[id="${described.split(" ").at(-1)}"]`).textContent()).toMatch(
      /^Not valid JSON/,
    );
    expect(await overflowsSideways()).toBe(false);
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("runs with the node progress shown and the outputs rendered", async () => {
    await click(page, page.getByLabel("meta"));
    await page.keyboard.press("End");
    await page.keyboard.type("}");
    await click(page, page.getByRole("button", { name: "Run" }));
    const summary = page.locator("[data-output=summary]");
    await expect.poll(() => summary.textContent(), { timeout: 20_000 }).toContain("Island ferries × 3");
    expect(await summary.locator("strong").textContent()).toBe("Island ferries");
    expect(await page.locator("[data-output=meta]").textContent()).toMatch(/"lang":\s?"en"/);
    const steps = await page.getByRole("list", { name: "Progress" }).locator("li").allTextContents();
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps).toEqual(["start: done", "done: done"]);
    expect(await overflowsSideways()).toBe(false);
    await screenshot(page, "apps-webapp-workflow", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("says so for an app that does not exist", async () => {
    const response = await page.goto(`${builder.url}/a/no-such-app`);
    expect(response?.status()).toBe(404);
    expect(await page.textContent("body")).toContain("There is no app at this address.");
  });

  it("raised no errors in the pages", () => {
    expect(pageErrors).toEqual([]);
  });
});
