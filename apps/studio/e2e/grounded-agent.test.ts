import { type FakeProvider, type FakeTurn, lastUserText, startFakeOpenAI } from "@app/testing";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

// An agent built on a knowledge base entirely in the studio, driven by the mouse and keyboard:
// create the base, upload two files, attach the base to a new agent with the search tool, ask,
// and follow the answer's citation to the passage it came from.

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

const API_KEY = "sk-e2e-grounded-0001";
const SATURDAY = "On Saturdays the Surabaya depot ships parcels to the islands by the 07:30 ferry.";

/** Long enough for several chunks (500 tokens each), the cited passage in the last of them. */
const SHIPPING = [
  "# Shipping guide",
  "",
  ...Array.from({ length: 14 }, (_, i) => [
    `## Route ${i + 1}`,
    "",
    `Route ${i + 1} collects parcels from the Bandung warehouse every weekday at noon and hands them ` +
      `to the regional courier, who scans each label, weighs the parcel and prints a manifest for ` +
      `the driver. Late parcels wait for the next day's collection.`,
    "",
  ]).flat(),
  "## Weekend service",
  "",
  SATURDAY,
].join("\n");

const REFUNDS = [
  "# Refund policy",
  "",
  "Customers may ask for a refund within 30 days of purchase. Refunds are paid to the original card.",
].join("\n");

/** Tool results the model has seen since the latest user message. */
function resultsThisTurn(turn: FakeTurn) {
  const lastUser = turn.messages.findLastIndex((message) => message.role === "user");
  return turn.messages.slice(lastUser + 1).flatMap((message) => message.toolResults);
}

/** A click where a person would click: the middle of the element, with the mouse. */
async function click(target: Locator) {
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  if (!box) throw new Error("the element has no box to click");
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/** Clicks into a field and types, key by key. */
async function typeInto(target: Locator, text: string) {
  await click(target);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(text);
}

function agentIdInUrl(): string {
  return new URL(page.url()).pathname.split("/").at(-1) ?? "";
}

/** Whether the element is inside the window and inside every scrolling box around it. */
function isScrolledIntoView(selector: string): Promise<boolean> {
  // A string, not a function: tsx's transform would leave helper calls the page does not have.
  return page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    if (!element) return false;
    const box = element.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight) return false;
    for (let parent = element.parentElement; parent; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (!/(auto|scroll)/.test(style.overflowY)) continue;
      const outer = parent.getBoundingClientRect();
      if (box.top < outer.top - 1 || box.top > outer.bottom) return false;
    }
    return true;
  })()`) as Promise<boolean>;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: API_KEY,
    script: (turn) => {
      if (!turn.tools.includes("knowledge_search")) return { text: "I have nothing to search." };
      const [found] = resultsThisTurn(turn);
      if (!found) return { toolCalls: [{ name: "knowledge_search", input: { query: lastUserText(turn) } }] };
      const { results } = found.output as { results: { text: string; document_name: string }[] };
      const best = results.find((result) => result.text.includes("Saturdays"));
      return {
        text: best ? `The Surabaya depot ships on Saturdays (${best.document_name}).` : "I found nothing.",
      };
    },
  });
  // The fake provider listens on loopback, which provider base URLs may reach only with this.
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // A missing element fails at its line rather than at the test's timeout.
  page.setDefaultTimeout(10_000);
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("grounded@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
  await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: API_KEY, base_url: fake.baseUrl },
  });
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

describe("an agent grounded in a knowledge base, built in the studio", () => {
  it("creates a knowledge base and uploads two files", async () => {
    await page.goto(`${builder.url}/knowledge`);
    await click(page.getByRole("button", { name: "Create your first knowledge base" }));
    await typeInto(page.getByLabel("Name"), "Operations");
    await click(page.getByRole("button", { name: "Create knowledge base" }));
    await page.waitForURL(/\/knowledge\/kb_/);

    const chooser = page.waitForEvent("filechooser");
    await click(page.getByRole("button", { name: "Choose files" }));
    await (await chooser).setFiles([
      { name: "shipping.md", mimeType: "text/markdown", buffer: Buffer.from(SHIPPING) },
      { name: "refunds.md", mimeType: "text/markdown", buffer: Buffer.from(REFUNDS) },
    ]);
    const rows = page.getByTestId("document-row");
    for (const name of ["shipping.md", "refunds.md"]) {
      await expect
        .poll(() => rows.filter({ hasText: name }).textContent(), { timeout: 30_000 })
        .toContain("Ready");
    }
    const shippingChunks = Number(
      /(\d+)\s*$/.exec(
        (await rows.filter({ hasText: "shipping.md" }).locator("td").nth(3).textContent()) ?? "",
      )?.[1],
    );
    // The cited passage is not the first chunk: opening it has to find and scroll to it.
    expect(shippingChunks).toBeGreaterThan(2);
  });

  it("compares the three search modes side by side with ranks and a readable relevance", async () => {
    await typeInto(page.getByLabel("Query"), "Surabaya ferry on Saturdays");
    await page.keyboard.press("Enter");
    for (const mode of ["fulltext", "vector", "hybrid"]) {
      const column = page.getByTestId(`mode-${mode}`);
      await expect
        .poll(() => column.getByTestId("search-hit").count(), { timeout: 15_000 })
        .toBeGreaterThan(0);
      const first = (await column.getByTestId("search-hit").first().textContent()) ?? "";
      expect(first, mode).toMatch(
        mode === "fulltext"
          ? /Rank #1, (strong|medium|weak) · \d{1,3}%/
          : /Rank #1, (strong|medium|weak) match/,
      );
      // Never a raw score such as a fused 0.0328.
      expect(first, mode).not.toMatch(/\b0\.\d{3,}/);
    }
    expect(await page.getByTestId("mode-fulltext").getByTestId("search-hit").first().textContent()).toContain(
      "shipping.md",
    );
    const boxes = await Promise.all(
      ["fulltext", "vector", "hybrid"].map((mode) => page.getByTestId(`mode-${mode}`).boundingBox()),
    );
    // Side by side: one row, left to right, not overlapping.
    for (let i = 1; i < boxes.length; i++) {
      expect(boxes[i]?.y).toBe(boxes[0]?.y);
      expect(boxes[i]?.x ?? 0).toBeGreaterThanOrEqual((boxes[i - 1]?.x ?? 0) + (boxes[i - 1]?.width ?? 0));
    }
    await page.getByRole("region", { name: "Retrieval test" }).scrollIntoViewIfNeeded();
    await screenshot(page, "knowledge-compare", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);

    // A hit opens its passage in the document, on the same page.
    await click(page.getByTestId("mode-fulltext").getByTestId("search-hit").first().getByRole("link"));
    const focused = page.getByTestId("focused-chunk");
    await expect.poll(() => focused.textContent()).toContain(SATURDAY);
    await click(page.getByRole("button", { name: "Close" }));
    await expect.poll(() => focused.count()).toBe(0);
    expect(new URL(page.url()).search).toBe("");
  });

  it("creates an agent with the base attached and the knowledge search tool", async () => {
    await click(page.getByRole("link", { name: "Agents" }));
    await click(page.getByRole("button", { name: "Create your first agent" }));
    await typeInto(page.getByRole("textbox", { name: "Name" }), "Dispatcher");
    await page.getByLabel("Provider").selectOption("openai-compatible");
    await typeInto(page.getByRole("combobox", { name: "Model" }), "fake-model");
    await typeInto(page.getByLabel("Instructions"), "Answer from the knowledge base and cite it.");

    const picker = page.getByLabel("Attach a knowledge base");
    await click(picker);
    await page.keyboard.press("Escape");
    // A closed select takes the typed name, as it does for a person tabbing through the form.
    await page.keyboard.type("Operations");
    await expect.poll(() => page.getByTestId("attached-base").textContent()).toContain("Operations");
    await click(page.getByRole("button", { name: "+ Knowledge search" }));
    await typeInto(page.getByLabel("Passages per search"), "8");
    await screenshot(page, "agent-knowledge", { isDoc: true });
    await click(page.getByRole("button", { name: "Create agent" }));
    await page.waitForURL(/\/agents\/agt_/);

    const saved = await builder.request(`/api/agents/${agentIdInUrl()}`, { cookie });
    const agent = (await saved.json()) as { knowledge_base_ids: string[]; tools: unknown[] };
    expect(agent.knowledge_base_ids).toEqual([expect.stringMatching(/^kb_/)]);
    expect(agent.tools).toEqual([{ type: "knowledge_search", top_k: 8 }]);
  });

  it("answers with a citation that opens the passage it used", async () => {
    await typeInto(page.getByLabel("Message"), "Which depot ships on Saturdays?");
    await page.keyboard.press("Enter");
    const answer = page.getByTestId("message-assistant").last();
    await expect
      .poll(() => answer.textContent(), { timeout: 20_000 })
      .toContain("The Surabaya depot ships on Saturdays (shipping.md).");
    const citation = answer.getByTestId("citation").filter({ hasText: "Surabaya depot" });
    await expect.poll(() => citation.count()).toBe(1);
    expect(await citation.textContent()).toContain("shipping.md");
    await screenshot(page, "agent-citations", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);

    await click(citation.getByRole("link", { name: /shipping\.md · passage \d+/ }));
    await page.waitForURL(/\/knowledge\/kb_.*[?&]chunk=chk_/);
    const focused = page.getByTestId("focused-chunk");
    await expect.poll(() => focused.count(), { timeout: 15_000 }).toBe(1);
    expect(await focused.textContent()).toContain(SATURDAY);
    expect(await focused.textContent()).toContain("Cited passage");
    await expect.poll(() => isScrolledIntoView("[data-testid=focused-chunk]")).toBe(true);
    expect(await page.getByRole("heading", { name: "shipping.md" }).isVisible()).toBe(true);
    await screenshot(page, "knowledge-passage", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);

    // Reopened from the stored conversation, the answer cites the same passage.
    await page.goBack();
    await page.waitForURL(/\/agents\/agt_/);
    const conversation = page.getByLabel("Conversation");
    await expect.poll(() => conversation.locator("option").count()).toBe(2);
    await conversation.selectOption({ index: 1 });
    await expect
      .poll(() => page.getByTestId("citation").filter({ hasText: "Surabaya depot" }).count())
      .toBe(1);
  });

  it("sets up code, HTTP and workflow tools, shows the server's refusal at the field and a failed save", async () => {
    await click(page.getByRole("button", { name: "+ Code" }));
    const code = page.getByRole("region", { name: "Code: run_code" });
    await code.getByLabel("Language").selectOption("go");
    await expect.poll(() => code.locator(".cm-content").first().textContent()).toContain("func Main(");
    await code.getByLabel("Language").selectOption("rust");
    await expect.poll(() => code.locator(".cm-content").first().textContent()).toContain("fn main_fn(");
    await code.getByLabel("Language").selectOption("javascript");
    await expect.poll(() => code.locator(".cm-content").first().textContent()).toContain("function main(");

    // The editor's long template lines once widened the tools box under the chat, which took the clicks.
    const form = await page.getByRole("form", { name: "Agent" }).boundingBox();
    const tools = await page.getByRole("group", { name: "Tools", exact: true }).boundingBox();
    expect((tools?.x ?? 0) + (tools?.width ?? 0)).toBeLessThanOrEqual((form?.x ?? 0) + (form?.width ?? 0));
    await click(page.getByRole("button", { name: "+ HTTP request" }));
    const http = page.getByRole("region", { name: "HTTP request: call_api" });
    await typeInto(http.getByLabel("URL"), "https://api.example.com/stock/{sku}");
    // Named like the code tool: the API refuses the second name and the message sits at that field.
    await typeInto(http.getByLabel("Tool name"), "run_code");
    await click(page.getByRole("button", { name: "Save" }));
    const renamed = page.getByRole("region", { name: "HTTP request: run_code" });
    await expect
      .poll(() => renamed.locator(".field-error").first().textContent())
      .toContain("duplicate tool name run_code");
    await screenshot(page, "agent-tool-error", { isDoc: true });

    await typeInto(renamed.getByLabel("Tool name"), "stock");
    await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: {
        name: "Restock",
        graph: {
          nodes: [
            { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
            { id: "done", type: "end", position: { x: 0, y: 0 }, data: { outputs: [] } },
          ],
          edges: [{ id: "e", source: "start", target: "done" }],
        },
      },
    });
    await click(page.getByRole("button", { name: "+ Workflow" }));
    const workflow = page.getByRole("region", { name: "Workflow: run_workflow" });
    await expect.poll(() => workflow.getByRole("option", { name: "Restock" }).count()).toBe(1);
    await workflow.locator("select").selectOption({ label: "Restock" });
    await typeInto(workflow.getByLabel("Tool name"), "restock");
    // The server cannot be reached: the save says so and nothing looks saved.
    await page.route("**/api/agents/agt_*", (route) =>
      route.request().method() === "PATCH" ? route.abort("internetdisconnected") : route.continue(),
    );
    await click(page.getByRole("button", { name: "Save" }));
    await expect
      .poll(() => page.getByRole("form", { name: "Agent" }).getByRole("alert").allTextContents())
      .toContainEqual(expect.stringContaining("Could not reach the server"));
    await page.unroute("**/api/agents/agt_*");
    await click(page.getByRole("button", { name: "Save" }));
    await expect
      .poll(async () => {
        const response = await builder.request(`/api/agents/${agentIdInUrl()}`, { cookie });
        return ((await response.json()) as { tools: { type: string; name?: string }[] }).tools.map(
          (tool) => tool.name ?? tool.type,
        );
      })
      .toEqual(["knowledge_search", "run_code", "stock", "restock"]);
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
