import { type FakeProvider, startFakeAnthropic, startFakeGoogle, startFakeOpenAI } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let builder: TestBuilder;
let openai: FakeProvider;
let anthropic: FakeProvider;
let google: FakeProvider;
let cookie: string;

beforeAll(async () => {
  [openai, anthropic, google] = await Promise.all([
    startFakeOpenAI(),
    startFakeAnthropic(),
    startFakeGoogle(),
  ]);
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  cookie = (await builder.signUp()).cookie;
});
afterAll(async () => {
  await builder?.stop();
  await Promise.all([openai?.close(), anthropic?.close(), google?.close()]);
});

// Every provider whose wire protocol has a fake: the real AI SDK provider package is pointed at
// it by the credential's base URL. Cohere speaks its own /v2/chat protocol, which is not faked.
const cases = [
  { provider: "openai", model: "gpt-4o-mini", fake: () => openai },
  { provider: "openai-compatible", model: "llama3.2", fake: () => openai },
  { provider: "mistral", model: "mistral-small-latest", fake: () => openai },
  { provider: "groq", model: "llama-3.3-70b-versatile", fake: () => openai },
  { provider: "deepseek", model: "deepseek-chat", fake: () => openai },
  { provider: "xai", model: "grok-4", fake: () => openai },
  { provider: "anthropic", model: "claude-sonnet-4-5", fake: () => anthropic },
  { provider: "google", model: "gemini-2.5-flash", fake: () => google },
];

describe("providers", () => {
  it("lists the nine providers with a default base URL for each hosted one", async () => {
    const body = (await (await builder.request("/api/providers", { cookie })).json()) as {
      data: { id: string; default_base_url: string | null; requires_base_url: boolean }[];
    };
    expect(body.data.map((provider) => provider.id).sort()).toEqual([
      "anthropic",
      "cohere",
      "deepseek",
      "google",
      "groq",
      "mistral",
      "openai",
      "openai-compatible",
      "xai",
    ]);
    for (const provider of body.data)
      expect(provider.default_base_url === null, provider.id).toBe(provider.requires_base_url);
  });

  it.each(cases)(
    "chats through $provider with its key and model, JSON and streaming",
    async ({ provider, model, fake }) => {
      const apiKey = `key-for-${provider}-0000`;
      const credential = await builder.request("/api/credentials", {
        method: "POST",
        cookie,
        json: { provider, api_key: apiKey, base_url: fake().baseUrl },
      });
      expect(credential.status).toBe(201);
      const agent = await builder.request("/api/agents", {
        method: "POST",
        cookie,
        json: { name: provider, provider, model, instructions: "Be brief." },
      });
      const { id } = (await agent.json()) as { id: string };
      fake().script = () => ({ text: `hello from ${provider}` });

      const answer = await builder.request(`/api/agents/${id}/chat`, {
        method: "POST",
        cookie,
        json: { message: "hi" },
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      expect(await answer.json()).toMatchObject({
        message: { content: `hello from ${provider}`, provider, model },
      });
      expect(fake().turns.at(-1)).toMatchObject({ model, apiKey, isStreaming: true });

      const stream = await builder.request(`/api/agents/${id}/chat`, {
        method: "POST",
        cookie,
        headers: { accept: "text/event-stream" },
        json: { message: "again" },
      });
      const text = await stream.text();
      expect(text).toContain("event: finish");
      const deltas = [...text.matchAll(/event: text_delta\ndata: (.*)\n/g)].map(
        (match) => (JSON.parse(match[1] ?? "{}") as { text: string }).text,
      );
      expect(deltas.join("")).toBe(`hello from ${provider}`);
    },
  );
});
