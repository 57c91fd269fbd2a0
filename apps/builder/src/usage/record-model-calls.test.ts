import { creditsSpentTotal, modelTokensTotal } from "@app/observability";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import type { ModelCallRecord } from "../providers/metered-model.ts";
import { personalWorkspaceId } from "../workspaces/personal-workspace.ts";
import { recordModelCalls } from "./record-model-calls.ts";

let builder: TestBuilder;
let workspaceId: string;

beforeAll(async () => {
  builder = await startTestBuilder();
  const { userId } = await builder.signUp();
  workspaceId = await personalWorkspaceId(builder.deps, { id: userId, name: "Metrics" });
});
afterAll(() => builder?.stop());

/** A provider name no other code path uses, so the counters' series belong to this test alone. */
const PROVIDER = "metrics-after-commit";

function call(inputTokens: number, outputTokens: number): ModelCallRecord {
  return {
    provider: PROVIDER,
    model: "m",
    inputTokens,
    outputTokens,
    latencyMs: 5,
    status: "succeeded",
    startedAt: builder.deps.clock.now(),
  };
}

async function counted() {
  const tokens = (await modelTokensTotal.get()).values.filter((v) => v.labels.provider === PROVIDER);
  const credits = (await creditsSpentTotal.get()).values.find((v) => v.labels.meter === "llm_tokens");
  return {
    input: tokens.find((v) => v.labels.direction === "input")?.value ?? 0,
    output: tokens.find((v) => v.labels.direction === "output")?.value ?? 0,
    credits: credits?.value ?? 0,
  };
}

describe("model_tokens_total and credits_spent_total", () => {
  it("count a batch of model calls once its write committed, with its tokens and its charge", async () => {
    const before = await counted();
    await recordModelCalls(builder.deps, { workspaceId, source: "agent_chat" }, [call(1_000, 500)]);
    const after = await counted();
    expect(after.input - before.input).toBe(1_000);
    expect(after.output - before.output).toBe(500);
    expect(after.credits).toBeGreaterThan(before.credits);
  });

  it("count nothing when the write fails (here: the workspace does not exist)", async () => {
    const before = await counted();
    await expect(
      recordModelCalls(builder.deps, { workspaceId: "ws_does_not_exist", source: "agent_chat" }, [
        call(1_000, 500),
      ]),
    ).rejects.toThrow();
    expect(await counted()).toEqual(before);
  });
});
