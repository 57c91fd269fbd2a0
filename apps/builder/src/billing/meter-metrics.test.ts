// credits_spent_total summarises the ledger: a charge counts once its write committed, and a charge
// whose transaction rolls back counts nothing.
import { creditsSpentTotal } from "@app/observability";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { personalWorkspaceId } from "../workspaces/personal-workspace.ts";
import { countCreditsSpent } from "./append-ledger-entries.ts";
import { chargeGeneration, chargeSandboxRun } from "./meter.ts";

let builder: TestBuilder;
let workspaceId: string;

beforeAll(async () => {
  builder = await startTestBuilder({
    env: { BILLING_PRICES: JSON.stringify({ generations: { image: 300 }, sandbox_second: 1_000 }) },
  });
  const { userId } = await builder.signUp();
  workspaceId = await personalWorkspaceId(builder.deps, { id: userId, name: "Meter metrics" });
});
afterAll(() => builder?.stop());

async function spent(meter: string): Promise<number> {
  return (await creditsSpentTotal.get()).values.find((v) => v.labels.meter === meter)?.value ?? 0;
}

class RolledBack extends Error {}

describe("credits_spent_total", () => {
  it("counts nothing for a generation's charge whose transaction rolls back", async () => {
    const before = await spent("generation");
    await expect(
      builder.deps.db.transaction(async (tx) => {
        await chargeGeneration(
          { ...builder.deps, db: tx },
          {
            id: "gen_rolled_back",
            workspaceId,
            kind: "image",
            model: "owner/model",
          },
        );
        throw new RolledBack("the generation's own write failed");
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect(await spent("generation")).toBe(before);
  });

  it("counts a generation's charge once its transaction committed", async () => {
    const before = await spent("generation");
    const charged = await builder.deps.db.transaction((tx) =>
      chargeGeneration(
        { ...builder.deps, db: tx },
        {
          id: "gen_committed",
          workspaceId,
          kind: "image",
          model: "owner/model",
        },
      ),
    );
    expect(await spent("generation")).toBe(before);
    countCreditsSpent(charged);
    expect(await spent("generation")).toBe(before + 300);
  });

  it("counts a sandbox run's charge, written on its own, once", async () => {
    const before = await spent("sandbox");
    await chargeSandboxRun(builder.deps, {
      workspaceId,
      durationMs: 2_000,
      language: "python",
      source: "sandbox_run",
    });
    expect(await spent("sandbox")).toBe(before + 2_000);
  });
});
