import { createSandbox, type Sandbox } from "@app/sandbox";
import { type FakeProvider, type FakeTurn, startFakeAnthropic } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

// One slot and no queue: while another workspace's run holds the slot, a tool's run is refused at
// once (the queue-full limit), which makes the refusal certain without waiting out a queue timeout.
async function probeSandbox(): Promise<{ sandbox?: Sandbox; reason: string }> {
  try {
    const sandbox = await createSandbox({
      uidBase: 1_700_000_000,
      concurrency: 1,
      queuePerWorkspace: 0,
      warmPerLanguage: 0,
    });
    const report = sandbox.runtimes();
    const missing = report.languages.find(
      (runtime) => ["python", "javascript"].includes(runtime.language) && !runtime.isAvailable,
    );
    if (report.isAvailable && !missing) return { sandbox, reason: "" };
    await sandbox.close();
    return { reason: `@app/sandbox cannot run here: ${report.reason ?? missing?.reason}` };
  } catch (error) {
    return { reason: `@app/sandbox is not usable: ${(error as Error).message}` };
  }
}
const { sandbox, reason } = await probeSandbox();

let builder: TestBuilder;
let anthropic: FakeProvider;
let cookie: string;

beforeAll(async () => {
  if (!sandbox) return;
  anthropic = await startFakeAnthropic({ apiKey: "sk-ant-good-key-0002" });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" }, deps: { sandbox } });
  ({ cookie } = await builder.signUp());
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "anthropic", api_key: "sk-ant-good-key-0002", base_url: anthropic.baseUrl },
  });
  expect(credential.status, await credential.clone().text()).toBe(201);
}, 240_000);
afterAll(async () => {
  await builder?.stop();
  await Promise.all([anthropic?.close(), sandbox?.close()]);
});

function toolResults(turn: FakeTurn) {
  const lastUser = turn.messages.findLastIndex((message) => message.role === "user");
  return turn.messages.slice(lastUser + 1).flatMap((message) => message.toolResults);
}

describe("agents' code tools on a busy sandbox", () => {
  it.skipIf(!sandbox)(
    `a code tool refused by a full sandbox hands the model sandbox_busy, and the turn goes on${sandbox ? "" : ` (skipped: ${reason})`}`,
    async () => {
      if (!sandbox) return;
      const created = await builder.request("/api/agents", {
        method: "POST",
        cookie,
        json: {
          name: "Calculator",
          instructions: "You add numbers with the tool.",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          tools: [
            {
              type: "code",
              name: "add",
              description: "Adds two numbers.",
              language: "javascript",
              code: "function main(inputs) { return { sum: inputs.a + inputs.b }; }",
              parameters: {
                type: "object",
                properties: { a: { type: "number" }, b: { type: "number" } },
                required: ["a", "b"],
              },
            },
          ],
        },
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const agentId = ((await created.json()) as { id: string }).id;

      // Another workspace's long run takes the only slot (granted as the run is submitted).
      const holder = new AbortController();
      const holding = sandbox
        .run({
          workspaceId: "wsp_other",
          language: "python",
          code: "import time\ndef main(inputs):\n    time.sleep(30)\n    return {}\n",
          input: {},
          timeoutMs: 60_000,
          signal: holder.signal,
        })
        .catch(() => undefined);
      expect(sandbox.stats().active).toBe(1);

      let seen: unknown;
      anthropic.script = (turn) => {
        const results = toolResults(turn);
        if (results.length === 0) return { toolCalls: [{ name: "add", input: { a: 2, b: 3 } }] };
        seen = results[0]?.output;
        return { text: "The calculator is busy; try again shortly." };
      };
      try {
        const response = await builder.request(`/api/agents/${agentId}/chat`, {
          method: "POST",
          cookie,
          json: { message: "What is 2 + 3?" },
        });
        expect(response.status, await response.clone().text()).toBe(200);
        const answer = (await response.json()) as {
          message: { tool_calls: { name: string; output: unknown }[] };
        };
        const refusal = { error: expect.stringMatching(/^sandbox_busy: /), stderr: "" };
        expect(answer.message.tool_calls).toEqual([
          expect.objectContaining({ name: "add", output: refusal }),
        ]);
        expect(seen).toEqual(refusal);
      } finally {
        holder.abort();
        await holding;
      }
    },
  );
});
