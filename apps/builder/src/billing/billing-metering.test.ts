// Metering: what agents, workflows, generation and the sandbox use is debited from the workspace's
// credits, entry by entry as recorded; with BILLING_ENFORCE=1 an empty balance gets 402 before
// anything runs.
import { systemClock } from "@app/core";
import { createSandbox, type Sandbox } from "@app/sandbox";
import {
  FAKE_REPLICATE_MODELS,
  type FakeProvider,
  type FakeReplicate,
  isAfterToolResult,
  startFakeOpenAI,
  startFakeReplicate,
} from "@app/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { workspaces } from "../workspaces/schema.ts";
import { addCredits } from "./add-credits.ts";

interface LedgerEntry {
  kind: string;
  credits: number;
  details: Record<string, unknown>;
}
interface ModelCall {
  id: string;
  source: string;
  input_tokens: number;
  output_tokens: number;
}

const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;
/** Round numbers, so the expected debits are plain arithmetic: 1 credit per input token, 2 per output token. */
const PRICES = {
  tokens: { "openai-compatible/llama3.2": { input: 1_000_000, output: 2_000_000 } },
  generations: { image: 300 },
  sandbox_second: 1_000,
};
const STARTER = 10_000;

/** The real sandbox when this host can run JavaScript in it. */
async function probeSandbox(): Promise<{ sandbox?: Sandbox; reason: string }> {
  try {
    const sandbox = await createSandbox({ uidBase: 1_680_000_000, concurrency: 1, warmPerLanguage: 0 });
    const javascript = sandbox.runtimes().languages.find((runtime) => runtime.language === "javascript");
    if (sandbox.runtimes().isAvailable && javascript?.isAvailable) return { sandbox, reason: "" };
    await sandbox.close();
    return {
      reason: `the sandbox cannot run javascript here: ${javascript?.reason ?? sandbox.runtimes().reason}`,
    };
  } catch (error) {
    return { reason: `@app/sandbox is not usable: ${(error as Error).message}` };
  }
}

const probe = await probeSandbox();
let openai: FakeProvider;
let replicate: FakeReplicate;

beforeAll(async () => {
  openai = await startFakeOpenAI({ apiKey: "sk-meter-key-0001" });
  replicate = await startFakeReplicate({ apiToken: "r8_meter" });
});
afterAll(async () => {
  await Promise.all([openai?.close(), replicate?.close(), probe.sandbox?.close()]);
});

function startBuilder(env: Record<string, string>) {
  return startTestBuilder({
    env: {
      ALLOW_PRIVATE_URLS: "1",
      REPLICATE_API_TOKEN: "r8_meter",
      REPLICATE_BASE_URL: replicate.baseUrl,
      BILLING_PRICES: JSON.stringify(PRICES),
      ...env,
    },
    ...(probe.sandbox ? { deps: { sandbox: probe.sandbox } } : {}),
  });
}

async function setUp(builder: TestBuilder, cookie: string) {
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "sk-meter-key-0001", base_url: openai.baseUrl },
  });
  expect(credential.status).toBe(201);
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: {
      name: "Calculator",
      provider: "openai-compatible",
      model: "llama3.2",
      tools: [
        {
          type: "code",
          name: "add",
          description: "Adds two numbers",
          language: "javascript",
          code: "function main(input) {\n  return { sum: input.a + input.b };\n}\n",
          parameters: {
            type: "object",
            properties: { a: { type: "number" }, b: { type: "number" } },
            required: ["a", "b"],
          },
        },
      ],
    },
  });
  expect(agent.status).toBe(201);
  const workflow = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: {
      name: "Shout and ask",
      graph: {
        nodes: [
          {
            id: "start",
            type: "start",
            position: { x: 0, y: 0 },
            data: { inputs: [{ name: "q", type: "string", required: true }] },
          },
          {
            id: "shout",
            type: "code",
            position: { x: 200, y: 0 },
            data: {
              language: "javascript",
              code: "function main(inputs) {\n  return { text: inputs.q.toUpperCase() };\n}\n",
              inputs: [{ name: "q", value: "{{start.q}}" }],
              outputs: [{ name: "text", type: "string" }],
            },
          },
          {
            id: "ask",
            type: "llm",
            position: { x: 400, y: 0 },
            data: { provider: "openai-compatible", model: "llama3.2", prompt: "{{shout.text}}" },
          },
          {
            id: "done",
            type: "end",
            position: { x: 600, y: 0 },
            data: { outputs: [{ name: "answer", value: "{{ask.text}}" }] },
          },
        ],
        edges: [
          { id: "e1", source: "start", target: "shout" },
          { id: "e2", source: "shout", target: "ask" },
          { id: "e3", source: "ask", target: "done" },
        ],
      },
    },
  });
  expect(workflow.status).toBe(201);
  return {
    agentId: ((await agent.json()) as { id: string }).id,
    workflowId: ((await workflow.json()) as { id: string }).id,
  };
}

async function ledger(builder: TestBuilder, cookie: string): Promise<LedgerEntry[]> {
  const response = await builder.request("/api/billing/ledger?limit=100", { cookie });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: LedgerEntry[] }).data;
}

async function balance(builder: TestBuilder, cookie: string): Promise<number> {
  return ((await (await builder.request("/api/billing", { cookie })).json()) as { balance: number }).balance;
}

/** The model answers with fixed token counts: a tool call first when the agent has a tool, then text. */
function scriptModel() {
  openai.script = (turn) => {
    if (turn.tools.includes("add") && !isAfterToolResult(turn))
      return { toolCalls: [{ name: "add", input: { a: 2, b: 3 } }], usage: { input: 20, output: 5 } };
    return { text: "Five.", usage: { input: 30, output: 7 } };
  };
}

describe.skipIf(!probe.sandbox)(`metering${probe.sandbox ? "" : ` (skipped: ${probe.reason})`}`, () => {
  let builder: TestBuilder;
  let cookie: string;
  let ids: { agentId: string; workflowId: string };

  beforeAll(async () => {
    builder = await startBuilder({ BILLING_STARTER_CREDITS: String(STARTER) });
    ({ cookie } = await builder.signUp());
    ids = await setUp(builder, cookie);
    scriptModel();
  });
  afterAll(() => builder?.stop());

  it("debits every model call, generation and sandbox run as recorded, and nothing else", async () => {
    const chat = await builder.request(`/api/agents/${ids.agentId}/chat`, {
      method: "POST",
      cookie,
      json: { message: "What is 2 + 3?" },
    });
    expect(chat.status).toBe(200);
    const run = await builder.request(`/api/workflows/${ids.workflowId}/runs`, {
      method: "POST",
      cookie,
      json: { inputs: { q: "hello" } },
    });
    expect(((await run.json()) as { status: string }).status).toBe("succeeded");
    const generation = await builder.request("/api/replicate/generate/image", {
      method: "POST",
      cookie,
      json: { model: IMAGE, input: { prompt: "a fox" }, wait: 5 },
    });
    expect(generation.status).toBe(201);
    const generationId = ((await generation.json()) as { id: string }).id;
    const sandboxRun = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: {
        language: "javascript",
        code: "function main(input) {\n  return { ok: true };\n}\n",
        input: {},
      },
    });
    expect(sandboxRun.status).toBe(200);
    const { duration_ms } = (await sandboxRun.json()) as { duration_ms: number };

    const entries = (await ledger(builder, cookie)).filter((entry) => entry.kind === "usage");
    const byMeter = (meter: string) => entries.filter((entry) => entry.details.meter === meter);

    // Tokens: one debit per recorded model call, at 1 credit per input and 2 per output token.
    const calls = (
      (await (await builder.request("/api/usage/calls?limit=100", { cookie })).json()) as {
        data: ModelCall[];
      }
    ).data;
    expect(calls.map((call) => call.source).sort()).toEqual(["agent_chat", "agent_chat", "workflow_llm"]);
    expect(
      byMeter("llm_tokens")
        .map((entry) => [entry.details.model_call_id, entry.credits])
        .sort(),
    ).toEqual(calls.map((call) => [call.id, -(call.input_tokens + 2 * call.output_tokens)]).sort());

    // The generation, at the image price.
    expect(byMeter("generation").map((entry) => [entry.details.generation_id, entry.credits])).toEqual([
      [generationId, -300],
    ]);

    // Sandbox time, at 1 credit per millisecond (1000 a second): the agent's code tool, the workflow's
    // Code node and the direct run, the last one exactly as long as the run reported.
    const sandbox = byMeter("sandbox");
    expect(sandbox.map((entry) => entry.details.source).sort()).toEqual([
      "agent_tool",
      "sandbox_run",
      "workflow_code",
    ]);
    for (const entry of sandbox) expect(entry.credits).toBe(-Math.ceil(Number(entry.details.duration_ms)));
    expect(sandbox.find((entry) => entry.details.source === "sandbox_run")?.details.duration_ms).toBe(
      duration_ms,
    );

    // The balance is the starter grant less exactly these debits.
    expect(entries).toHaveLength(calls.length + 1 + 3);
    const spent = entries.reduce((sum, entry) => sum - entry.credits, 0);
    expect(await balance(builder, cookie)).toBe(STARTER - spent);
  });
});

describe.skipIf(!probe.sandbox)(`enforcement${probe.sandbox ? "" : ` (skipped: ${probe.reason})`}`, () => {
  let builder: TestBuilder;
  let cookie: string;
  let ids: { agentId: string; workflowId: string };

  beforeAll(async () => {
    builder = await startBuilder({ BILLING_ENFORCE: "1", BILLING_STARTER_CREDITS: "0" });
    ({ cookie } = await builder.signUp());
    ids = await setUp(builder, cookie);
    scriptModel();
  });
  afterAll(() => builder?.stop());

  it("answers 402 with a clear message before any work starts when the balance is empty", async () => {
    expect(await balance(builder, cookie)).toBe(0);
    const modelTurns = openai.turns.length;
    const predictions = replicate.predictions.size;

    const attempts = await Promise.all([
      builder.request(`/api/agents/${ids.agentId}/chat`, {
        method: "POST",
        cookie,
        json: { message: "2 + 3?" },
      }),
      builder.request(`/api/workflows/${ids.workflowId}/runs`, {
        method: "POST",
        cookie,
        json: { inputs: { q: "hi" } },
      }),
      builder.request("/api/replicate/generate/image", {
        method: "POST",
        cookie,
        json: { model: IMAGE, input: { prompt: "a fox" } },
      }),
      builder.request("/api/sandbox/run", {
        method: "POST",
        cookie,
        json: { language: "javascript", code: "function main() {\n  return {};\n}\n", input: {} },
      }),
    ]);
    for (const refused of attempts) {
      expect(refused.status).toBe(402);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("insufficient_credits");
      expect(body.error.message).toMatch(/Out of credits: .* this workspace has 0\. Buy a credit pack/);
    }

    // Nothing ran: no model call, no prediction, no run, no usage, no debit.
    expect(openai.turns.length).toBe(modelTurns);
    expect(replicate.predictions.size).toBe(predictions);
    const runs = (await (
      await builder.request(`/api/workflows/${ids.workflowId}/runs`, { cookie })
    ).json()) as {
      data: unknown[];
    };
    expect(runs.data).toEqual([]);
    const calls = (await (await builder.request("/api/usage/calls", { cookie })).json()) as {
      data: unknown[];
    };
    expect(calls.data).toEqual([]);
    expect(await ledger(builder, cookie)).toEqual([]);
  });

  it("lets the work run again once credits are added, and debits it", async () => {
    const workspaceId = await workspaceOf(builder, cookie);
    await builder.deps.db.transaction((tx) =>
      addCredits(
        { db: tx, clock: systemClock },
        {
          workspaceId,
          credits: 500,
          kind: "purchase",
          description: "test grant",
          reference: `test:${workspaceId}`,
        },
      ),
    );
    const chat = await builder.request(`/api/agents/${ids.agentId}/chat`, {
      method: "POST",
      cookie,
      json: { message: "What is 2 + 3?" },
    });
    expect(chat.status).toBe(200);
    expect(await balance(builder, cookie)).toBeLessThan(500);
  });
});

/** The caller's personal workspace. */
async function workspaceOf(builder: TestBuilder, cookie: string): Promise<string> {
  const session = await builder.request("/api/auth/get-session", { cookie });
  const userId = ((await session.json()) as { user: { id: string } }).user.id;
  const [row] = await builder.deps.db.select().from(workspaces).where(eq(workspaces.ownerUserId, userId));
  if (!row) throw new Error("no workspace");
  return row.id;
}
