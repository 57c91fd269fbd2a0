import { createSandbox, type Sandbox } from "@app/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let sandbox: Sandbox;
let builder: TestBuilder;
let cookie: string;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_660_000_000, concurrency: 2, warmPerLanguage: 0 });
  builder = await startTestBuilder({ deps: { sandbox } });
  ({ cookie } = await builder.signUp());
}, 240_000);
afterAll(async () => {
  await builder?.stop();
  await sandbox?.close();
});

const programs = {
  python: "def main(inputs):\n    return {'total': inputs['a'] + inputs['b'], 'label': 'py'}\n",
  javascript: "function main(inputs) {\n  return { total: inputs.a + inputs.b, label: 'js' };\n}\n",
  go: 'package main\n\nfunc Main(inputs map[string]any) (map[string]any, error) {\n\ta := inputs["a"].(float64)\n\tb := inputs["b"].(float64)\n\treturn map[string]any{"total": a + b, "label": "go"}, nil\n}\n',
  rust: 'fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String> {\n    let a = inputs["a"].as_f64().ok_or("a")?;\n    let b = inputs["b"].as_f64().ok_or("b")?;\n    Ok(serde_json::json!({ "total": a + b, "label": "rust" }))\n}\n',
} as const;

function codeGraph(language: string, code: string) {
  return {
    nodes: [
      {
        id: "start",
        type: "start",
        position: { x: 0, y: 0 },
        data: {
          inputs: [
            { name: "a", type: "number", required: true },
            { name: "b", type: "number", required: true },
          ],
        },
      },
      {
        id: "calc",
        type: "code",
        position: { x: 200, y: 0 },
        data: {
          language,
          code,
          inputs: [
            { name: "a", value: "{{start.a}}" },
            { name: "b", value: "{{start.b}}" },
          ],
          outputs: [
            { name: "total", type: "number" },
            { name: "label", type: "string" },
          ],
        },
      },
      {
        id: "done",
        type: "end",
        position: { x: 400, y: 0 },
        data: { outputs: [{ name: "answer", value: "{{calc.label}}={{calc.total}}" }] },
      },
    ],
    edges: [
      { id: "e1", source: "start", target: "calc" },
      { id: "e2", source: "calc", target: "done" },
    ],
  };
}

async function run(language: string, code: string) {
  const created = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name: `code ${language}`, graph: codeGraph(language, code) },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const response = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs: { a: 2, b: 3 } },
  });
  return (await response.json()) as {
    status: string;
    outputs: unknown;
    error: { code: string; message: string; node_id: string } | null;
  };
}

describe("Code nodes run in the sandbox", () => {
  for (const [language, code] of Object.entries(programs)) {
    it(`runs ${language} and checks the declared outputs`, { timeout: 240_000 }, async () => {
      const result = await run(language, code);
      expect(result.error).toBeNull();
      expect(result.status).toBe("succeeded");
      expect(result.outputs).toEqual({
        answer: `${language === "javascript" ? "js" : language === "python" ? "py" : language}=5`,
      });
    });
  }

  it("fails the node with the program's error and its line", async () => {
    const result = await run(
      "python",
      "def main(inputs):\n    x = 1\n    return {'total': x / 0, 'label': 'never'}\n",
    );
    expect(result.status).toBe("failed");
    expect(result.error?.node_id).toBe("calc");
    expect(result.error?.message).toMatch(/ZeroDivisionError|division/);
    expect(result.error?.message).toContain("line 3");
  });

  it("runs a run's Code nodes on one sandbox session, closed when the run ends", async () => {
    const step = (id: string, from: string) => ({
      id,
      type: "code",
      position: { x: 0, y: 0 },
      data: {
        language: "javascript",
        code: "function main(inputs) {\n  return { n: inputs.n + 1, seen: typeof globalThis.mark };\n}\n",
        inputs: [{ name: "n", value: from }],
        outputs: [
          { name: "n", type: "number" },
          { name: "seen", type: "string" },
        ],
      },
    });
    const graph = {
      nodes: [
        {
          id: "start",
          type: "start",
          position: { x: 0, y: 0 },
          data: { inputs: [{ name: "n", type: "number", required: true }] },
        },
        step("one", "{{start.n}}"),
        step("two", "{{one.n}}"),
        step("three", "{{two.n}}"),
        {
          id: "done",
          type: "end",
          position: { x: 0, y: 0 },
          data: { outputs: [{ name: "n", value: "{{three.n}}" }] },
        },
      ],
      edges: [
        { id: "e1", source: "start", target: "one" },
        { id: "e2", source: "one", target: "two" },
        { id: "e3", source: "two", target: "three" },
        { id: "e4", source: "three", target: "done" },
      ],
    };
    const created = await builder.request("/api/workflows", {
      method: "POST",
      cookie,
      json: { name: "chain", graph },
    });
    const { id } = (await created.json()) as { id: string };
    const before = sandbox.stats();
    const response = await builder.request(`/api/workflows/${id}/runs`, {
      method: "POST",
      cookie,
      json: { inputs: { n: 1 } },
    });
    const result = (await response.json()) as { status: string; outputs: unknown };
    expect(result).toMatchObject({ status: "succeeded", outputs: { n: 4 } });
    const after = sandbox.stats();
    // The second and third nodes ran on the runner the first one used (plain JavaScript: the
    // workspace's isolate runner, which an earlier run of this workspace may have left parked).
    expect(after.reused - before.reused).toBeGreaterThanOrEqual(2);
    expect(after.held).toBe(0);
  });

  it("keeps each Code node's stdout and stderr with its run, failed runs too, cut to the limit", async () => {
    type StoredRun = {
      id: string;
      nodes: { node_id: string; logs: { stdout: string; stderr: string; truncated: boolean } | null }[];
    };
    const logsOf = async (code: string) => {
      const created = await builder.request("/api/workflows", {
        method: "POST",
        cookie,
        json: { name: "logs", graph: codeGraph("python", code) },
      });
      const { id } = (await created.json()) as { id: string };
      const answered = (await (
        await builder.request(`/api/workflows/${id}/runs`, {
          method: "POST",
          cookie,
          json: { inputs: { a: 2, b: 3 } },
        })
      ).json()) as StoredRun;
      const stored = (await (
        await builder.request(`/api/runs/${answered.id}`, { cookie })
      ).json()) as StoredRun;
      // The blocking answer and the stored run agree.
      expect(stored.nodes).toEqual(answered.nodes);
      return {
        calc: stored.nodes.find((node) => node.node_id === "calc")?.logs,
        start: stored.nodes.find((node) => node.node_id === "start")?.logs,
      };
    };
    const printed = await logsOf(
      "import sys\ndef main(inputs):\n    print('adding', inputs['a'], inputs['b'])\n    print('careful', file=sys.stderr)\n    return {'total': inputs['a'] + inputs['b'], 'label': 'py'}\n",
    );
    expect(printed.calc).toEqual({ stdout: "adding 2 3\n", stderr: "careful\n", truncated: false });
    expect(printed.start).toBeNull();

    const failed = await logsOf(
      "def main(inputs):\n    print('about to divide')\n    return {'total': 1 / 0, 'label': 'never'}\n",
    );
    expect(failed.calc?.stdout).toBe("about to divide\n");

    const { NODE_LOG_LIMIT } = await import("../sandbox/node-logs.ts");
    const flood = await logsOf(
      "def main(inputs):\n    print('first line')\n    print('x' * 50000)\n    print('last line')\n    return {'total': 5, 'label': 'py'}\n",
    );
    expect(flood.calc?.truncated).toBe(true);
    expect(flood.calc?.stdout.length).toBeLessThan(NODE_LOG_LIMIT + 100);
    expect(flood.calc?.stdout.startsWith("first line\n")).toBe(true);
    expect(flood.calc?.stdout.endsWith("last line\n")).toBe(true);
  });

  it("fails the node when an output has the wrong type", async () => {
    const result = await run("javascript", "function main() { return { total: 'five', label: 'js' }; }\n");
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("output_type_mismatch");
  });
});
