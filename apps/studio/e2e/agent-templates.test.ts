// Agent templates: each becomes an agent on the provider the workspace has a key for.
import { type FakeProvider, helloScript, startFakeOpenAI } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { AGENT_TEMPLATES } from "../src/agents/templates.ts";
import { collectPageErrors, launchBrowser, signIn } from "./browser.ts";

const API_KEY = "sk-e2e-agent-templates-7171";
let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: API_KEY, script: helloScript });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("templates@example.com", "correct horse battery"));
  // The workspace's only key is an OpenAI-compatible server's: templates must not land on OpenAI.
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: API_KEY, base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

type StoredAgent = {
  name: string;
  provider: string;
  instructions: string;
  tools: { type: string; name?: string }[];
  knowledge_base_ids: string[];
};

describe("agent templates", () => {
  it("creates each template as an agent on the workspace's provider, with its tools", async () => {
    expect(AGENT_TEMPLATES.length).toBeGreaterThanOrEqual(5);
    for (const template of AGENT_TEMPLATES) {
      await page.goto(`${builder.url}/agents`);
      await page.getByRole("button", { name: `Use template ${template.name}` }).click();
      await page.waitForURL(/\/agents\/agt_/);
      const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
      const agent = (await (await builder.request(`/api/agents/${id}`, { cookie })).json()) as StoredAgent;
      expect(agent).toMatchObject({
        name: template.name,
        provider: "openai-compatible",
        instructions: template.instructions,
      });
      expect(agent.tools.map((tool) => tool.type)).toEqual(template.tools.map((tool) => tool.type));
      expect(agent.knowledge_base_ids).toHaveLength(template.sampleKnowledge ? 1 : 0);
    }
  });

  it("gives the help-center template a sample knowledge base holding its article", async () => {
    const agents = (await (await builder.request("/api/agents?q=Help-center", { cookie })).json()) as {
      data: StoredAgent[];
    };
    const baseId = agents.data[0]?.knowledge_base_ids[0] ?? "";
    const documents = (await (
      await builder.request(`/api/knowledge-bases/${baseId}/documents`, { cookie })
    ).json()) as { data: { name: string }[] };
    expect(documents.data.map((document) => document.name)).toEqual(["help-center.md"]);
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
