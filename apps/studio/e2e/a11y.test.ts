import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";
import { codeWorkflowGraph } from "./seed.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
const ids: Record<string, string> = {};

async function create(path: string, json: unknown): Promise<string> {
  const response = await builder.request(path, { method: "POST", cookie, json });
  expect(response.status, path).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("a11y@example.com", "correct horse battery"));
  ids.agent = await create("/api/agents", {
    name: "Support bot",
    provider: "openai",
    model: "gpt-4o-mini",
    instructions: "Help.",
  });
  ids.base = await create("/api/knowledge-bases", {
    name: "Handbook",
    embedding: { provider: "local", model: "feature-hashing-v1" },
  });
  ids.workflow = await create("/api/workflows", { name: "Shout", graph: codeWorkflowGraph("code_1") });
  ids.app = await create("/api/apps", { agent_id: ids.agent, title: "Support desk" });
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

/** Each screen and what shows it is ready. */
const SCREENS: { name: string; path: () => string; ready: (page: Page) => Promise<unknown> }[] = [
  {
    name: "sign in",
    path: () => "/sign-in",
    ready: (p) => p.getByRole("button", { name: "Sign in" }).waitFor(),
  },
  { name: "agents", path: () => "/agents", ready: (p) => p.getByText("Support bot").waitFor() },
  { name: "agent", path: () => `/agents/${ids.agent}`, ready: (p) => p.getByLabel("Message").waitFor() },
  {
    name: "workflows",
    path: () => "/workflows",
    ready: (p) => p.getByText("Start from a template").waitFor(),
  },
  {
    name: "workflow editor",
    path: () => `/workflows/${ids.workflow}`,
    ready: async (p) => {
      await p.getByTestId("node-code_1").click();
      await p.locator(".code-editor .cm-line span").first().waitFor();
    },
  },
  {
    name: "runs",
    path: () => `/workflows/${ids.workflow}/runs`,
    ready: (p) => p.getByText("No runs yet").waitFor(),
  },
  { name: "approvals", path: () => "/approvals", ready: (p) => p.getByText("Nothing to approve").waitFor() },
  { name: "apps", path: () => "/apps", ready: (p) => p.getByRole("table", { name: "Apps" }).waitFor() },
  {
    name: "app",
    path: () => `/apps/${ids.app}`,
    ready: async (p) => {
      await p.getByRole("form", { name: "App settings" }).waitFor();
      await p.getByText("No conversations yet").waitFor();
      await p.getByText("No app keys").waitFor();
    },
  },
  { name: "knowledge", path: () => "/knowledge", ready: (p) => p.getByText("Handbook").waitFor() },
  {
    name: "knowledge base",
    path: () => `/knowledge/${ids.base}`,
    ready: (p) => p.getByRole("heading", { name: "Retrieval test" }).waitFor(),
  },
  {
    name: "generate",
    path: () => "/generate",
    ready: async (p) => {
      await p.getByRole("heading", { name: "New generation" }).waitFor();
      await p.waitForLoadState("networkidle");
      // Without a Replicate token: a setup note with its link, and no error before the user acts.
      await p.getByTestId("replicate-setup").waitFor();
      expect(await p.getByRole("alert").count()).toBe(0);
      await screenshot(p, "generate-no-token");
    },
  },
  {
    name: "settings",
    path: () => "/settings",
    ready: (p) => p.locator("#keys-title").waitFor(),
  },
];

describe("accessibility (axe-core, WCAG 2.1 AA): no serious or critical violations", () => {
  for (const theme of ["light", "dark"] as const) {
    for (const screen of SCREENS) {
      it(`${screen.name}, ${theme} theme`, async () => {
        const context = screen.name === "sign in" ? await browser.newContext() : page.context();
        const target = screen.name === "sign in" ? await context.newPage() : page;
        if (screen.name !== "sign in" && (await context.cookies()).length === 0) {
          await signIn(context, cookie, builder.url);
        }
        await target.addInitScript(`localStorage.setItem("theme", "${theme}")`);
        await target.goto(`${builder.url}${screen.path()}`);
        await screen.ready(target);
        await target.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
        expect(await a11yViolations(target)).toEqual([]);
        if (target !== page) await context.close();
      });
    }
  }

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
