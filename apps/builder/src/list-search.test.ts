// `?q=` on the lists the studio shows: agents, workflows, knowledge bases and their documents, apps.
import { type FakeProvider, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentOnFake } from "../test/agent-support.ts";
import { startTestBuilder, type TestBuilder } from "../test/harness.ts";
import { createBase, uploadOk } from "../test/knowledge-support.ts";
import { edge, node } from "../test/workflow-support.ts";

const KEY = "sk-compat-good-key-0001";
let builder: TestBuilder;
let openai: FakeProvider;
let alice: string;
let bob: string;

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: KEY });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
  await openai?.close();
});

async function names(path: string, cookie = alice): Promise<string[]> {
  const response = await builder.request(path, { cookie });
  expect(response.status, await response.clone().text()).toBe(200);
  const page = (await response.json()) as { data: { name: string }[] };
  return page.data.map((row) => row.name).sort();
}

const graph = {
  nodes: [node("start", "start", { inputs: [] }), node("done", "end", { outputs: [] })],
  edges: [edge("start", "done")],
};

describe("?q= on lists", () => {
  it("finds agents by name or description, case-insensitively, and never another workspace's", async () => {
    await createAgentOnFake(builder, alice, openai, KEY, { name: "Refund helper" });
    await createAgentOnFake(builder, alice, openai, KEY, {
      name: "Sales bot",
      description: "Answers REFUND questions too",
    });
    await createAgentOnFake(builder, alice, openai, KEY, { name: "Greeter" });
    await createAgentOnFake(builder, bob, openai, KEY, { name: "Bob's refund agent" });

    expect(await names("/api/agents?q=refund")).toEqual(["Refund helper", "Sales bot"]);
    expect(await names("/api/agents?q=%20GREET%20")).toEqual(["Greeter"]);
    expect(await names("/api/agents?q=nothing-like-this")).toEqual([]);
    expect(await names("/api/agents?q=refund", bob)).toEqual(["Bob's refund agent"]);
  });

  it("takes % and _ literally", async () => {
    await createAgentOnFake(builder, alice, openai, KEY, { name: "100% uptime" });
    await createAgentOnFake(builder, alice, openai, KEY, { name: "snake_case bot" });
    expect(await names("/api/agents?q=%25")).toEqual(["100% uptime"]);
    expect(await names("/api/agents?q=_")).toEqual(["snake_case bot"]);
  });

  it("pages through the matches only", async () => {
    for (const name of ["Nightly report 1", "Nightly report 2", "Nightly report 3", "Morning digest"]) {
      const created = await builder.request("/api/workflows", {
        method: "POST",
        cookie: alice,
        json: { name, graph },
      });
      expect(created.status).toBe(201);
    }
    const first = await builder.request("/api/workflows?q=nightly&limit=2", { cookie: alice });
    const page = (await first.json()) as { data: { name: string }[]; has_more: boolean; next_cursor: string };
    expect(page.data.map((row) => row.name)).toEqual(["Nightly report 3", "Nightly report 2"]);
    expect(page.has_more).toBe(true);
    expect(await names(`/api/workflows?q=nightly&limit=2&cursor=${page.next_cursor}`)).toEqual([
      "Nightly report 1",
    ]);
  });

  it("finds knowledge bases by name or description, and a base's documents by name", async () => {
    const handbook = await createBase(builder, alice, { name: "Handbook", description: "HR policies" });
    await createBase(builder, alice, { name: "Pricing" });
    await uploadOk(builder, alice, {
      knowledgeBaseId: handbook,
      name: "leave-policy.md",
      bytes: "# Leave\n\nTen days.",
    });
    await uploadOk(builder, alice, {
      knowledgeBaseId: handbook,
      name: "expenses.md",
      bytes: "# Expenses\n\nReceipts.",
    });

    expect(await names("/api/knowledge-bases?q=policies")).toEqual(["Handbook"]);
    expect(await names(`/api/knowledge-bases/${handbook}/documents?q=LEAVE`)).toEqual(["leave-policy.md"]);
  });

  it("finds apps by name, title, description or slug", async () => {
    const agentId = await createAgentOnFake(builder, alice, openai, KEY, { name: "Shop assistant" });
    const created = await builder.request("/api/apps", {
      method: "POST",
      cookie: alice,
      json: { agent_id: agentId, name: "Storefront chat", title: "Ask the shop" },
    });
    expect(created.status).toBe(201);
    expect(await names("/api/apps?q=storefront")).toEqual(["Storefront chat"]);
    expect(await names("/api/apps?q=ask%20the")).toEqual(["Storefront chat"]);
    expect(await names("/api/apps?q=no-such-app")).toEqual([]);
  });

  it("refuses an empty or overlong q with 422 naming it", async () => {
    for (const q of ["%20%20", "x".repeat(201)]) {
      const response = await builder.request(`/api/agents?q=${q}`, { cookie: alice });
      expect(response.status).toBe(422);
      expect(JSON.stringify(await response.json())).toContain("q");
    }
  });
});
