import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../../builder/test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { click, createApp } from "./apps-support.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

// The improvement loop in the studio: an end user dislikes an answer in the app; the team finds it
// in Logs, annotates it with the right answer, and the app's next such question gets the annotation
// without the model being asked.

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let slug: string;

const API_KEY = "sk-e2e-logs-000001";
const QUESTION = "How long is the warranty on the kettle?";
const WRONG = "The warranty lasts 6 months.";
const RIGHT = "The kettle's warranty lasts 2 years from the day of purchase.";

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: API_KEY,
    script: (turn) => ({ text: lastUserText(turn).includes("warranty") ? WRONG : "Hello!" }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  const { cookie } = await builder.signUp("logs@example.com", "correct horse battery");
  const agentId = await createAgentOnFake(builder, cookie, fake, API_KEY, { name: "Kettle support" });
  ({ slug } = await createApp(builder, cookie, { agent_id: agentId, title: "Kettle help" }));
  // Two end users: one asks about the warranty and dislikes the answer, the other only says hello.
  for (const [message, rating] of [
    [QUESTION, "dislike"],
    ["Hi there", "like"],
  ] as const) {
    const session = await json<{ token: string }>(
      await builder.request(`/api/public/apps/${slug}/session`, { method: "POST" }),
    );
    const turn = await json<{ message: { id: string } }>(
      await builder.request(`/api/public/apps/${slug}/chat`, {
        method: "POST",
        bearer: session.token,
        json: { message },
      }),
    );
    await json(
      await builder.request(`/api/public/apps/${slug}/messages/${turn.message.id}/feedback`, {
        method: "POST",
        bearer: session.token,
        json: { rating, comment: rating === "dislike" ? "It is two years!" : undefined },
      }),
    );
  }
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(10_000);
  pageErrors = collectPageErrors(page);
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

describe("Logs", () => {
  it("finds the disliked answer among the conversations by its rating", async () => {
    await page.goto(`${builder.url}/agents`);
    await click(page, page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Logs" }));
    await expect.poll(() => page.getByTestId("log-conversation-row").count()).toBe(2);
    await page.getByLabel("Rating").selectOption("dislike");
    await expect.poll(() => page.getByTestId("log-conversation-row").count()).toBe(1);
    const row = page.getByTestId("log-conversation-row");
    expect(await row.textContent()).toContain(QUESTION);
    expect(await row.textContent()).toContain("1 disliked");
    await click(page, row.getByRole("button", { name: "Open" }));
    const view = page.getByTestId("conversation-view");
    await expect.poll(() => view.getByTestId("log-message-assistant").textContent()).toContain(WRONG);
    expect(await view.getByTestId("feedback").textContent()).toContain("End user");
    expect(await view.getByTestId("feedback").textContent()).toContain("It is two years!");
    await screenshot(page, "logs-disliked-answer", { isDoc: true });
    expect(await a11yViolations(page)).toEqual([]);
  });

  it("annotates the answer with the right one, and the app's next such question gets it without the model", async () => {
    const view = page.getByTestId("conversation-view");
    await click(page, view.getByRole("button", { name: "Bad answer" }));
    await expect
      .poll(() => view.getByRole("button", { name: "Bad answer" }).getAttribute("aria-pressed"))
      .toBe("true");
    await click(page, view.getByRole("button", { name: "Annotate" }));
    const form = page.getByRole("form", { name: "Annotate" });
    expect(await form.locator('textarea[name="question"]').inputValue()).toBe(QUESTION);
    expect(await form.locator('textarea[name="answer"]').inputValue()).toBe(WRONG);
    await form.locator('textarea[name="answer"]').fill("");
    await click(page, form.locator('textarea[name="answer"]'));
    await page.keyboard.type(RIGHT);
    expect(await form.getByRole("checkbox").isChecked()).toBe(true);
    await click(page, form.getByRole("button", { name: "Save annotation" }));
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Annotation saved");
    await screenshot(page, "logs-annotated");

    // Ask again in the app, as an end user would.
    const calls = fake.turns.length;
    await page.goto(`${builder.url}/a/${slug}`);
    await click(page, page.getByRole("textbox", { name: "Message" }));
    await page.keyboard.type("how long is the warranty on the kettle");
    await page.keyboard.press("Enter");
    const answer = page.locator("[data-role=assistant]").last();
    await expect.poll(() => answer.textContent(), { timeout: 20_000 }).toContain(RIGHT);
    expect(fake.turns.length).toBe(calls);

    // Back in Logs, the new answer shows as the annotation's.
    await page.goto(`${builder.url}/logs`);
    await expect.poll(() => page.getByTestId("log-conversation-row").count()).toBe(3);
    await click(page, page.getByTestId("log-conversation-row").first().getByRole("button", { name: "Open" }));
    await expect
      .poll(() => page.getByTestId("conversation-view").getByTestId("log-message-assistant").textContent())
      .toContain("Annotation · similarity");
    expect(pageErrors).toEqual([]);
  });
});
