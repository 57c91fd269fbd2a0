import type { FakeProvider } from "@app/testing";
import { expect } from "vitest";
import type { TestBuilder } from "./harness.ts";

/**
 * Stores an OpenAI-compatible credential for `provider` (a fake on loopback) and creates an agent
 * on it, for tests that need one chat turn rather than the agent feature itself. Answers its id.
 *
 * @example const agentId = await createAgentOnFake(builder, cookie, openai, "sk-compat-good-key-0001");
 */
export async function createAgentOnFake(
  builder: TestBuilder,
  cookie: string,
  provider: FakeProvider,
  apiKey: string,
  agent: Record<string, unknown> = {},
): Promise<string> {
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: apiKey, base_url: provider.baseUrl },
  });
  expect(credential.status).toBe(201);
  const created = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: {
      name: "Helper",
      instructions: "Answer briefly.",
      provider: "openai-compatible",
      model: "llama3.2",
      ...agent,
    },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}
