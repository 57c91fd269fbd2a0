import { createSandbox, type Sandbox } from "@app/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

// Two users, so two workspaces, on one sandbox of two slots: one per workspace while both want it (the
// default share), the whole pool for a workspace alone for 5 s (the default contention window).
let sandbox: Sandbox;
let builder: TestBuilder;
let flooder: string;
let light: string;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_670_000_000, concurrency: 2, warmPerLanguage: 0 });
  builder = await startTestBuilder({ deps: { sandbox } });
  ({ cookie: flooder } = await builder.signUp());
  ({ cookie: light } = await builder.signUp());
}, 240_000);
afterAll(async () => {
  await builder?.stop();
  await sandbox?.close();
});

function graph(code: string, nodeSettings: Record<string, unknown> = {}) {
  return {
    nodes: [
      {
        id: "start",
        type: "start",
        position: { x: 0, y: 0 },
        data: { inputs: [{ name: "n", type: "number", required: true }] },
      },
      {
        id: "calc",
        type: "code",
        position: { x: 200, y: 0 },
        ...nodeSettings,
        data: {
          language: "javascript",
          code,
          inputs: [{ name: "n", value: "{{start.n}}" }],
          outputs: [{ name: "n", type: "number" }],
        },
      },
      {
        id: "done",
        type: "end",
        position: { x: 400, y: 0 },
        data: { outputs: [{ name: "n", value: "{{calc.n}}" }] },
      },
    ],
    edges: [
      { id: "e1", source: "start", target: "calc" },
      { id: "e2", source: "calc", target: "done" },
    ],
  };
}

async function create(cookie: string, code: string, nodeSettings?: Record<string, unknown>): Promise<string> {
  const response = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: "scheduling", graph: graph(code, nodeSettings) },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function run(cookie: string, id: string, n: number) {
  const response = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs: { n } },
  });
  return {
    status: response.status,
    body: (await response.json()) as { status: string; outputs: { n?: unknown } },
  };
}

describe("Code nodes are scheduled fairly between workspaces", () => {
  it("one workspace floods the sandbox; another's run starts within one run's length and succeeds", {
    timeout: 180_000,
  }, async () => {
    // Each flooding run keeps its slot for about a second of pure JavaScript (its workspace's isolate runner).
    const busy = await create(
      flooder,
      "function main(inputs) {\n  const until = Date.now() + 1000;\n  while (Date.now() < until) {}\n  return { n: inputs.n };\n}\n",
    );
    const quick = await create(light, "function main(inputs) {\n  return { n: inputs.n + 1 };\n}\n");
    const FLOOD = 6;
    let floodDone = 0;
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      run(flooder, busy, i).then((result) => {
        floodDone++;
        return result;
      }),
    );
    // Wait until the flood holds the sandbox: its runs are executing and queued.
    while (sandbox.stats().active === 0 || sandbox.stats().queued === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Alone, the flood borrowed both slots.
    expect(sandbox.stats().borrowed).toBe(1);
    const lightResult = await run(light, quick, 41);
    // The light run took the borrowed slot back at once, beside the flood's runs, and from then on the
    // flood ran one at a time: it ended while most of the flood was still waiting, not behind it.
    const floodDoneWhenLightEnded = floodDone;
    expect(lightResult.status).toBe(200);
    expect(lightResult.body).toMatchObject({ status: "succeeded", outputs: { n: 42 } });
    expect(floodDoneWhenLightEnded).toBeLessThanOrEqual(2);
    const flooded = await Promise.all(flood);
    for (const [i, result] of flooded.entries()) {
      expect(result.body).toMatchObject({ status: "succeeded", outputs: { n: i } });
    }
    // Two slots, and the light run beside the flood's borrowed one until that run ended.
    expect(sandbox.stats().maxActive).toBeLessThanOrEqual(3);
  });

  it("a node that exhausts its memory or time fails its run alone; the workspace's next run succeeds", {
    timeout: 120_000,
  }, async () => {
    const hog = await create(
      light,
      "function main() {\n  const keep = [];\n  for (;;) keep.push(new Array(1e5).fill(1));\n}\n",
    );
    const quick = await create(light, "function main(inputs) {\n  return { n: inputs.n + 1 };\n}\n");
    const failed = await run(light, hog, 0);
    expect(failed.body.status).toBe("failed");
    expect(JSON.stringify(failed.body)).toMatch(/memory/);
    const fine = await run(light, quick, 1);
    expect(fine.body).toMatchObject({ status: "succeeded", outputs: { n: 2 } });
    // Time: the node's own limit stops it (and the workspace's runner with it); the next run starts clean.
    const spin = await create(light, "function main() {\n  for (;;);\n}\n", { timeout_ms: 1000 });
    const stopped = await run(light, spin, 0);
    expect(stopped.body.status).toBe("failed");
    expect(JSON.stringify(stopped.body)).toMatch(/timeout/);
    const again = await run(light, quick, 2);
    expect(again.body).toMatchObject({ status: "succeeded", outputs: { n: 3 } });
  });
});
