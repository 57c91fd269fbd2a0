import { createSandbox, type Sandbox } from "@app/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";

let sandbox: Sandbox;
let builder: TestBuilder;
let cookie: string;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_650_000_000, concurrency: 2, warmPerLanguage: 1 });
  builder = await startTestBuilder({ deps: { sandbox } });
  ({ cookie } = await builder.signUp());
});
afterAll(async () => {
  await builder?.stop();
  await sandbox?.close();
});

describe("POST /api/sandbox/run", () => {
  it("needs a session or an API key", async () => {
    const response = await fetch(`${builder.url}/api/sandbox/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ language: "python", code: "def main(i):\n    return {}\n", input: {} }),
    });
    expect(response.status).toBe(401);
  });

  it("runs main on the input and answers the one result shape", async () => {
    const response = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: {
        language: "python",
        code: "def main(inputs):\n    print('working')\n    return {'greeting': 'hello ' + inputs['name']}\n",
        input: { name: "Ada" },
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      output: { greeting: "hello Ada" },
      stdout: "working\n",
      stderr: "",
      exit_code: 0,
      duration_ms: expect.any(Number),
      timed_out: false,
      truncated: false,
      error: null,
    });
  });

  it("answers errors in the code with 200 and `error`: a runtime error's line, a timeout", async () => {
    const failing = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: { language: "javascript", code: "function main() {\n  return undefinedName;\n}\n", input: {} },
    });
    expect(failing.status).toBe(200);
    expect(await failing.json()).toMatchObject({
      output: null,
      error: { kind: "runtime", type: "ReferenceError", line: 2 },
    });

    const slow = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: {
        language: "python",
        code: "def main(i):\n    while True:\n        pass\n",
        input: {},
        timeout_ms: 500,
      },
    });
    expect(await slow.json()).toMatchObject({ timed_out: true, exit_code: null, error: { kind: "timeout" } });
  });

  it("answers a Go compile error as a result with the line, not a 500", async () => {
    const response = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: {
        language: "go",
        code: "package main\n\nfunc Main(inputs map[string]any) (map[string]any, error) {\n\treturn nil, missing\n}\n",
        input: {},
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ output: null, error: { kind: "compile", line: 4 } });
  });

  it("keeps the builder's own port out of reach of the code", async () => {
    const port = Number(new URL(builder.url).port);
    const response = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      json: {
        language: "python",
        code: [
          "import socket",
          "def main(inputs):",
          "    try:",
          "        socket.create_connection(('127.0.0.1', inputs['port']), timeout=2).close()",
          "        return {'reached': True}",
          "    except OSError as error:",
          "        return {'reached': False, 'error': type(error).__name__}",
        ].join("\n"),
        input: { port },
      },
    });
    expect(await response.json()).toMatchObject({
      output: { reached: false, error: "ConnectionRefusedError" },
    });
  });

  it("validates the request: language, input object, limits, JSON", async () => {
    const cases = [
      [{ language: "cobol", code: "x", input: {} }, "language"],
      [{ language: "python", code: "x", input: [1, 2] }, "input"],
      [{ language: "python", code: "x" }, "input"],
      [{ language: "python", code: "x", input: {}, timeout_ms: 3_600_000 }, "timeout_ms"],
      [{ language: "python", code: "x", input: {}, memory_mb: 1 }, "memory_mb"],
    ] as const;
    for (const [json, param] of cases) {
      const response = await builder.request("/api/sandbox/run", { method: "POST", cookie, json });
      expect(response.status, param).toBe(422);
      expect(await response.json()).toMatchObject({ error: { code: "validation_failed", param } });
    }
    const malformed = await builder.request("/api/sandbox/run", {
      method: "POST",
      cookie,
      headers: { "content-type": "application/json" },
      body: '{"language": "python", "input": {',
    });
    expect(malformed.status).toBe(400);
  });
});

describe("GET /api/sandbox/runtimes", () => {
  it("lists the languages with versions and the limit mechanism in force", async () => {
    const response = await builder.request("/api/sandbox/runtimes", { cookie });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      available: boolean;
      limits: { mechanism: string; detail: string };
      languages: { language: string; available: boolean; version: string | null }[];
    };
    expect(body.available).toBe(true);
    expect(["cgroup_v2", "rlimit"]).toContain(body.limits.mechanism);
    expect(body.languages.map((entry) => entry.language)).toEqual(["python", "javascript", "go", "rust"]);
    for (const entry of body.languages) {
      expect(entry.available, entry.language).toBe(true);
      expect(entry.version, entry.language).toMatch(/^\d+\.\d+/);
    }
    expect((await fetch(`${builder.url}/api/sandbox/runtimes`)).status).toBe(401);
  });

  it("is documented in the OpenAPI document", async () => {
    const document = (await (await fetch(`${builder.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/api/sandbox/run", "/api/sandbox/runtimes"]),
    );
  });
});
