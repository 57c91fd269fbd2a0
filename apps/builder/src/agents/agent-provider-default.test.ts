// A new agent without a provider gets the one the workspace set up, not OpenAI: a workspace whose
// only key is Anthropic's must not get an agent that fails on its first message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let builder: TestBuilder;
let serverKeyed: TestBuilder;
beforeAll(async () => {
  [builder, serverKeyed] = await Promise.all([
    startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } }),
    startTestBuilder({ env: { GROQ_API_KEY: "gsk-server-key-0001" } }),
  ]);
});
afterAll(() => Promise.all([builder?.stop(), serverKeyed?.stop()]));

async function addKey(cookie: string, json: Record<string, unknown>) {
  const response = await builder.request("/api/credentials", { method: "POST", cookie, json });
  expect(response.status).toBe(201);
}

async function defaultProvider(target: TestBuilder, cookie: string): Promise<string | null> {
  const response = await target.request("/api/providers", { cookie });
  return ((await response.json()) as { default_provider: string | null }).default_provider;
}

describe("an agent created without a provider", () => {
  it("gets the provider of the workspace's only key, and that provider's first chat model", async () => {
    const { cookie } = await builder.signUp();
    await addKey(cookie, { provider: "anthropic", api_key: "sk-ant-only-key-0001" });
    // Keys that are not model providers' never become the default.
    await addKey(cookie, { provider: "http", api_key: "a-webhook-secret" });
    expect(await defaultProvider(builder, cookie)).toBe("anthropic");
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Helper" },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-5" });
  });

  it("gets the newest key's provider when there are several, and keeps a provider it names", async () => {
    const { cookie } = await builder.signUp();
    await addKey(cookie, { provider: "anthropic", api_key: "sk-ant-older-key-0001" });
    await addKey(cookie, { provider: "mistral", api_key: "mistral-newer-key-0001" });
    const created = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Newest" },
    });
    expect(await created.json()).toMatchObject({ provider: "mistral" });
    const named = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Named", provider: "openai", model: "gpt-4o-mini" },
    });
    expect(await named.json()).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
  });

  it("gets a provider the server has a key for when the workspace stores none", async () => {
    const { cookie } = await serverKeyed.signUp();
    expect(await defaultProvider(serverKeyed, cookie)).toBe("groq");
    const response = await serverKeyed.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Fast" },
    });
    expect(await response.json()).toMatchObject({ provider: "groq" });
  });

  it("gets OpenAI when nothing is set up, and GET /api/providers says no provider is configured", async () => {
    const { cookie } = await builder.signUp();
    expect(await defaultProvider(builder, cookie)).toBeNull();
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Draft" },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ provider: "openai", model: "gpt-4.1" });
  });

  it("gets an openai-compatible key's provider with its first listed chat model", async () => {
    const { cookie } = await builder.signUp();
    await addKey(cookie, {
      provider: "openai-compatible",
      api_key: "ollama",
      base_url: "http://127.0.0.1:11434/v1",
    });
    const response = await builder.request("/api/agents", {
      method: "POST",
      cookie,
      json: { name: "Local" },
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ provider: "openai-compatible", model: "llama3.2" });
  });
});
