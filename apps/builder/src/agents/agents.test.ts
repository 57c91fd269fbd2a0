import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let builder: TestBuilder;
let alice: string;
let bob: string;
beforeAll(async () => {
  builder = await startTestBuilder();
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});
afterAll(() => builder?.stop());

const agentBody = {
  name: "Support bot",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  instructions: "Answer briefly.",
  tools: [{ type: "knowledge_search" }],
};

async function createAgent(cookie: string, body: Record<string, unknown> = agentBody) {
  const response = await builder.request("/api/agents", { method: "POST", cookie, json: body });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; name: string; updated_at: string };
}

describe("agents", () => {
  it("creates, reads, updates and deletes an agent with its defaults filled in", async () => {
    const created = await createAgent(alice);
    expect(created).toMatchObject({
      name: "Support bot",
      provider: "anthropic",
      description: "",
      temperature: null,
      knowledge_base_ids: [],
      memory_turns: 10,
      tools: [{ type: "knowledge_search" }],
    });
    expect(created.id).toMatch(/^agt_/);

    const fetched = await builder.request(`/api/agents/${created.id}`, { cookie: alice });
    expect(await fetched.json()).toEqual(created);

    const patched = await builder.request(`/api/agents/${created.id}`, {
      method: "PATCH",
      cookie: alice,
      json: { name: "Renamed", temperature: 0.2 },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      name: "Renamed",
      temperature: 0.2,
      model: "claude-sonnet-4-5",
    });

    const deleted = await builder.request(`/api/agents/${created.id}`, { method: "DELETE", cookie: alice });
    expect(deleted.status).toBe(204);
    expect((await builder.request(`/api/agents/${created.id}`, { cookie: alice })).status).toBe(404);
  });

  it("refuses a provider that is not in the catalogue with 422", async () => {
    const providers = (await (await builder.request("/api/providers", { cookie: alice })).json()) as {
      data: { id: string }[];
    };
    expect(providers.data.map((p) => p.id)).toEqual(
      expect.arrayContaining([
        "openai",
        "anthropic",
        "google",
        "mistral",
        "groq",
        "cohere",
        "deepseek",
        "xai",
        "openai-compatible",
      ]),
    );
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie: alice,
      json: { ...agentBody, provider: "acme-ai" },
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: "validation_failed", param: "provider" } });
  });

  it("names the offending nested field of a bad tool", async () => {
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie: alice,
      json: { ...agentBody, tools: [{ type: "code", name: "9bad", language: "python", code: "x" }] },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details.map((d) => d.path)).toContain("tools[0].name");
  });

  it("never shows one user's agent to another: 404 on read, update and delete, absent from the list", async () => {
    const secret = await createAgent(alice, { ...agentBody, name: "Alice's private agent" });
    for (const [method, json] of [
      ["GET", undefined],
      ["PATCH", { name: "stolen" }],
      ["DELETE", undefined],
    ] as const) {
      const response = await builder.request(`/api/agents/${secret.id}`, { method, cookie: bob, json });
      expect(response.status, method).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "agent_not_found" } });
    }
    const bobsList = (await (await builder.request("/api/agents?limit=100", { cookie: bob })).json()) as {
      data: { id: string }[];
    };
    expect(bobsList.data.map((a) => a.id)).not.toContain(secret.id);
    const stillThere = await builder.request(`/api/agents/${secret.id}`, { cookie: alice });
    expect(((await stillThere.json()) as { name: string }).name).toBe("Alice's private agent");
  });

  it("pages through the list by cursor, newest first, without repeats", async () => {
    const { cookie } = await builder.signUp();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createAgent(cookie, { ...agentBody, name: `a${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const page = (await (await builder.request(`/api/agents${query}`, { cookie })).json()) as {
        data: { id: string }[];
        has_more: boolean;
        next_cursor: string | null;
      };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((a) => a.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("rejects limits outside 1..100 with 422", async () => {
    for (const limit of ["0", "101", "abc"]) {
      const response = await builder.request(`/api/agents?limit=${limit}`, { cookie: alice });
      expect(response.status, limit).toBe(422);
      expect(await response.json()).toMatchObject({ error: { param: "limit" } });
    }
  });
});
