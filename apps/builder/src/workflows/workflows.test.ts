import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { newId } from "@app/core";
import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createBuilderApp } from "../app.ts";
import { claimInterruptedRuns, failRun } from "./runs/run-store.ts";
import { workflowRuns, workflows } from "./schema.ts";

let builder: TestBuilder;
let alice: string;
let bob: string;
let echo: Server;
let echoUrl: string;
const pendingResponses: (() => void)[] = [];

beforeAll(async () => {
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
  echo = createServer((req, res) => {
    if (req.url?.startsWith("/hang")) {
      pendingResponses.push(() => res.end("late"));
      return;
    }
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ method: req.method, url: req.url, body, auth: req.headers.authorization ?? null }),
      );
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const respond of pendingResponses) respond();
  await new Promise((resolve) => echo?.close(resolve));
  await builder?.stop();
});

const node = (
  id: string,
  type: string,
  data: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data,
  ...extra,
});
const edge = (source: string, target: string, sourceHandle?: string) => ({
  id: `${source}-${target}${sourceHandle ? `-${sourceHandle}` : ""}`,
  source,
  target,
  ...(sourceHandle ? { source_handle: sourceHandle } : {}),
});

function branchingGraph() {
  return {
    nodes: [
      node("start", "start", { inputs: [{ name: "n", type: "number", required: true }] }),
      node("check", "condition", {
        cases: [
          { id: "big", logic: "and", conditions: [{ left: "{{start.n}}", operator: "gt", right: "100" }] },
          { id: "medium", logic: "and", conditions: [{ left: "{{start.n}}", operator: "gt", right: "10" }] },
        ],
      }),
      node("say_big", "end", { outputs: [{ name: "size", value: "big {{start.n}}" }] }),
      node("say_medium", "end", { outputs: [{ name: "size", value: "medium" }] }),
      node("say_small", "end", { outputs: [{ name: "size", value: "small" }] }),
    ],
    edges: [
      edge("start", "check"),
      edge("check", "say_big", "big"),
      edge("check", "say_medium", "medium"),
      edge("check", "say_small", "else"),
    ],
  };
}

function httpGraph(url: string) {
  return {
    nodes: [
      node("start", "start", { inputs: [{ name: "q", type: "string", required: true }] }),
      node("call", "http", {
        method: "POST",
        url: `${url}/echo`,
        query: { q: "{{start.q}}" },
        body: { question: "{{start.q}}", nested: { list: ["{{start.q}}"] } },
        auth: { type: "bearer", token: "secret-{{start.q}}" },
      }),
      node("clock", "tool", { tool: "current_time", args: { timezone: "Asia/Jakarta" } }),
      node("done", "end", {
        outputs: [
          { name: "echoed", value: "{{call.json.body}}" },
          { name: "auth", value: "{{call.json.auth}}" },
          { name: "tz", value: "{{clock.timezone}}" },
        ],
      }),
    ],
    edges: [edge("start", "call"), edge("start", "clock"), edge("call", "done"), edge("clock", "done")],
  };
}

async function createWorkflow(cookie: string, graph: unknown, name = "wf") {
  const response = await builder.request("/api/workflows", { method: "POST", cookie, json: { name, graph } });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; trigger_url: string; graph: unknown; name: string };
}

async function runBlocking(cookie: string, id: string, inputs: Record<string, unknown>) {
  const response = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as {
    id: string;
    status: string;
    outputs: Record<string, unknown> | null;
    error: { code: string } | null;
    nodes: {
      node_id: string;
      status: string;
      outputs: Record<string, unknown> | null;
      error: { code: string } | null;
    }[];
  };
}

describe("workflow CRUD and validation", () => {
  it("creates, reads, lists, updates and deletes a workflow", async () => {
    const created = await createWorkflow(alice, branchingGraph(), "Sizes");
    expect(created.id).toMatch(/^wf_/);
    expect(created.trigger_url).toMatch(/\/api\/hooks\/wft_/);
    const got = await builder.request(`/api/workflows/${created.id}`, { cookie: alice });
    expect(await got.json()).toEqual(created);
    const list = (await (await builder.request("/api/workflows", { cookie: alice })).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((w) => w.id)).toContain(created.id);
    const renamed = await builder.request(`/api/workflows/${created.id}`, {
      method: "PATCH",
      cookie: alice,
      json: { name: "Renamed" },
    });
    expect(((await renamed.json()) as { name: string }).name).toBe("Renamed");
    expect(
      (await builder.request(`/api/workflows/${created.id}`, { method: "DELETE", cookie: alice })).status,
    ).toBe(204);
    expect((await builder.request(`/api/workflows/${created.id}`, { cookie: alice })).status).toBe(404);
  });

  it("answers 422 naming the node at fault for a structurally invalid graph", async () => {
    const graph = branchingGraph();
    graph.nodes[2] = node("say_big", "end", { outputs: [{ name: "size", value: "{{say_medium.size}}" }] });
    graph.edges = graph.edges.filter((e) => e.target !== "say_small");
    const response = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: { name: "bad", graph },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { code: string; details: { node_id?: string; code?: string }[] };
    };
    expect(body.error.code).toBe("invalid_graph");
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ node_id: "say_small", code: "unreachable_node" }),
        expect.objectContaining({ node_id: "say_big" }),
      ]),
    );
  });

  it("answers 422 for an unknown node type with the field path", async () => {
    const graph = branchingGraph();
    (graph.nodes[1] as { type: string }).type = "loop";
    const response = await builder.request("/api/workflows", {
      method: "POST",
      cookie: alice,
      json: { name: "bad", graph },
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { param: string } }).error.param).toMatch(
      /^graph\.nodes\[1\]/,
    );
  });

  it("validates a draft graph without saving it", async () => {
    const response = await builder.request("/api/workflows/validate", {
      method: "POST",
      cookie: alice,
      json: { graph: { nodes: [node("s", "start", { inputs: [] })], edges: [] } },
    });
    const body = (await response.json()) as { valid: boolean; issues: { code: string }[] };
    expect(body.valid).toBe(false);
    expect(body.issues.map((issue) => issue.code)).toContain("missing_end");
  });

  it("lists the tools Tool nodes can call", async () => {
    const response = await builder.request("/api/workflows/tools", { cookie: alice });
    const body = (await response.json()) as { data: { name: string }[] };
    expect(body.data.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["current_time", "http_request", "run_code", "run_workflow"]),
    );
  });

  it("exports and imports a workflow as the same document", async () => {
    const original = await createWorkflow(alice, httpGraph(echoUrl), "Portable");
    const exported = await (
      await builder.request(`/api/workflows/${original.id}/export`, { cookie: alice })
    ).json();
    expect(exported).toMatchObject({ format: "builder.workflow", version: 2, name: "Portable" });
    const imported = await builder.request("/api/workflows/import", {
      method: "POST",
      cookie: alice,
      json: exported,
    });
    expect(imported.status).toBe(201);
    const copy = (await imported.json()) as { id: string };
    expect(copy.id).not.toBe(original.id);
    const reExported = await (
      await builder.request(`/api/workflows/${copy.id}/export`, { cookie: alice })
    ).json();
    expect(reExported).toEqual(exported);
  });

  it("hides another user's workflows and runs: 404 everywhere", async () => {
    const mine = await createWorkflow(alice, branchingGraph());
    const run = await runBlocking(alice, mine.id, { n: 5 });
    for (const [method, path] of [
      ["GET", `/api/workflows/${mine.id}`],
      ["PATCH", `/api/workflows/${mine.id}`],
      ["DELETE", `/api/workflows/${mine.id}`],
      ["GET", `/api/workflows/${mine.id}/export`],
      ["POST", `/api/workflows/${mine.id}/runs`],
      ["GET", `/api/workflows/${mine.id}/runs`],
      ["GET", `/api/runs/${run.id}`],
      ["POST", `/api/runs/${run.id}/cancel`],
    ] as const) {
      const response = await builder.request(path, {
        method,
        cookie: bob,
        ...(method === "PATCH" ? { json: { name: "x" } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const list = (await (await builder.request("/api/workflows", { cookie: bob })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
  });
});

describe("running workflows", () => {
  it("takes exactly one branch of a condition and skips the others", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    const cases = [
      [500, "big 500", "say_big"],
      [50, "medium", "say_medium"],
      [5, "small", "say_small"],
    ] as const;
    for (const [n, size, taken] of cases) {
      const run = await runBlocking(alice, workflow.id, { n });
      expect(run.status).toBe("succeeded");
      expect(run.outputs).toEqual({ size });
      const statuses = Object.fromEntries(run.nodes.map((n) => [n.node_id, n.status]));
      for (const end of ["say_big", "say_medium", "say_small"]) {
        expect(statuses[end], `${n}: ${end}`).toBe(end === taken ? "succeeded" : "skipped");
      }
      expect(run.nodes.find((n) => n.node_id === "check")?.outputs).toEqual({
        matched_case: taken.replace("say_", "").replace("small", "else"),
      });
    }
  });

  it("stores the run with every node, the same as the blocking answer", async () => {
    const workflow = await createWorkflow(alice, httpGraph(echoUrl));
    const run = await runBlocking(alice, workflow.id, { q: "hello world" });
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(String(run.outputs?.echoed))).toEqual({
      question: "hello world",
      nested: { list: ["hello world"] },
    });
    expect(run.outputs?.auth).toBe("Bearer secret-hello world");
    expect(run.outputs?.tz).toBe("Asia/Jakarta");
    const stored = await (await builder.request(`/api/runs/${run.id}`, { cookie: alice })).json();
    expect(stored).toEqual(run);
    const history = (await (
      await builder.request(`/api/workflows/${workflow.id}/runs`, { cookie: alice })
    ).json()) as {
      data: { id: string; status: string }[];
    };
    expect(history.data[0]).toMatchObject({ id: run.id, status: "succeeded" });
  });

  it("lists only the runs of one status with ?status=, page after page", async () => {
    // n above 100 calls a closed port, so the run fails; anything else succeeds.
    const workflow = await createWorkflow(alice, {
      nodes: [
        node("start", "start", { inputs: [{ name: "n", type: "number", required: true }] }),
        node("check", "condition", {
          cases: [
            { id: "big", logic: "and", conditions: [{ left: "{{start.n}}", operator: "gt", right: "100" }] },
          ],
        }),
        node("call", "http", { method: "GET", url: "http://127.0.0.1:1/closed" }),
        node("done", "end", { outputs: [] }),
      ],
      edges: [edge("start", "check"), edge("check", "call", "big"), edge("check", "done", "else")],
    });
    const ran: { id: string; status: string }[] = [];
    for (const n of [1, 500, 2, 600, 3]) ran.push(await runBlocking(alice, workflow.id, { n }));
    expect(ran.map((run) => run.status)).toEqual(["succeeded", "failed", "succeeded", "failed", "succeeded"]);
    const listAll = async (status: string) => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await (
          await builder.request(
            `/api/workflows/${workflow.id}/runs?status=${status}&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
            { cookie: alice },
          )
        ).json()) as {
          data: { id: string; status: string }[];
          next_cursor: string | null;
          has_more: boolean;
        };
        expect(page.data.every((run) => run.status === status)).toBe(true);
        ids.push(...page.data.map((run) => run.id));
        cursor = page.has_more ? page.next_cursor : null;
      } while (cursor);
      return ids;
    };
    const newestFirst = (status: string) =>
      ran
        .filter((run) => run.status === status)
        .map((run) => run.id)
        .reverse();
    expect(await listAll("failed")).toEqual(newestFirst("failed"));
    expect(await listAll("succeeded")).toEqual(newestFirst("succeeded"));
    expect(await listAll("cancelled")).toEqual([]);
    const bad = await builder.request(`/api/workflows/${workflow.id}/runs?status=done`, { cookie: alice });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("status");
  });

  it("refuses inputs that do not match the start node with 422 and records no run", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    for (const inputs of [{}, { n: "not a number" }]) {
      const response = await builder.request(`/api/workflows/${workflow.id}/runs`, {
        method: "POST",
        cookie: alice,
        json: { inputs },
      });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({
        code: "invalid_inputs",
        param: "inputs.n",
      });
    }
    const history = (await (
      await builder.request(`/api/workflows/${workflow.id}/runs`, { cookie: alice })
    ).json()) as { data: unknown[] };
    expect(history.data).toEqual([]);
  });

  it("streams run events in order as Server-Sent Events", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    const response = await builder.request(`/api/workflows/${workflow.id}/runs`, {
      method: "POST",
      cookie: alice,
      headers: { accept: "text/event-stream" },
      json: { inputs: { n: 50 } },
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await response.text());
    const names = events.map((e) => `${e.event}${e.data.node_id ? `:${e.data.node_id}` : ""}`);
    expect(names[0]).toBe("run_started");
    expect(names.at(-1)).toBe("run_finished");
    expect(names.indexOf("node_started:start")).toBeLessThan(names.indexOf("node_finished:start"));
    expect(names.indexOf("node_finished:start")).toBeLessThan(names.indexOf("node_started:check"));
    expect(names.indexOf("node_finished:check")).toBeLessThan(names.indexOf("node_started:say_medium"));
    expect(names).toContain("node_skipped:say_big");
    expect(names).toContain("node_skipped:say_small");
    const finishedNode = events.find((e) => e.event === "node_finished" && e.data.node_id === "say_medium");
    expect(finishedNode?.data).toMatchObject({ status: "succeeded", outputs: { size: "medium" } });
    expect(typeof finishedNode?.data.elapsed_ms).toBe("number");
    const finished = events.at(-1)?.data as { status: string; run_id: string };
    expect(finished.status).toBe("succeeded");
    const stored = (await (
      await builder.request(`/api/runs/${finished.run_id}`, { cookie: alice })
    ).json()) as { status: string };
    expect(stored.status).toBe("succeeded");
  });

  it("fails an HTTP node aimed at a private address when private URLs are not allowed", async () => {
    const strict = await startTestBuilder();
    try {
      const { cookie } = await strict.signUp();
      // Named in the graph, the address is refused when the workflow is saved.
      const named = await strict.request("/api/workflows", {
        method: "POST",
        cookie,
        json: { name: "ssrf", graph: httpGraph(echoUrl) },
      });
      expect(named.status).toBe(422);
      expect(await named.json()).toMatchObject({ error: { param: "graph.nodes[1].data.url" } });
      // Each node naming a refused URL is reported, also when several share one URL (checked once).
      const chain = httpGraph(echoUrl);
      const second = { ...chain.nodes[1], id: "call_again" } as (typeof chain.nodes)[number];
      const shared = await strict.request("/api/workflows", {
        method: "POST",
        cookie,
        json: {
          name: "ssrf",
          graph: {
            nodes: [...chain.nodes, second],
            edges: [...chain.edges, edge("start", "call_again"), edge("call_again", "done")],
          },
        },
      });
      expect(shared.status).toBe(422);
      const refused = (await shared.json()) as { error: { details: { node_id: string; path: string }[] } };
      expect(refused.error.details.map((detail) => detail.node_id)).toEqual(["call", "call_again"]);
      // Coming from an input, it is refused when the node runs.
      const graph = httpGraph("{{start.q}}");
      const response = await strict.request("/api/workflows", {
        method: "POST",
        cookie,
        json: { name: "ssrf", graph },
      });
      expect(response.status).toBe(201);
      const workflow = (await response.json()) as { id: string };
      const run = await strict.request(`/api/workflows/${workflow.id}/runs`, {
        method: "POST",
        cookie,
        json: { inputs: { q: echoUrl } },
      });
      const body = (await run.json()) as { status: string; error: { code: string; node_id: string } };
      expect(body.status).toBe("failed");
      expect(body.error).toMatchObject({ code: "url_not_allowed", node_id: "call" });
    } finally {
      await strict.stop();
    }
  });

  it("cancels a running run", async () => {
    const graph = httpGraph(echoUrl);
    (graph.nodes[1] as unknown as { data: { url: string } }).data.url = `${echoUrl}/hang`;
    const workflow = await createWorkflow(alice, graph);
    const started = builder.request(`/api/workflows/${workflow.id}/runs`, {
      method: "POST",
      cookie: alice,
      json: { inputs: { q: "x" } },
    });
    let runId: string | undefined;
    await expect
      .poll(async () => {
        const history = (await (
          await builder.request(`/api/workflows/${workflow.id}/runs`, { cookie: alice })
        ).json()) as {
          data: { id: string }[];
        };
        runId = history.data[0]?.id;
        return runId;
      })
      .toBeTruthy();
    const cancel = await builder.request(`/api/runs/${runId}/cancel`, { method: "POST", cookie: alice });
    expect(cancel.status).toBe(202);
    const finished = (await (await started).json()) as { status: string };
    expect(finished.status).toBe("cancelled");
    const again = await builder.request(`/api/runs/${runId}/cancel`, { method: "POST", cookie: alice });
    expect(again.status).toBe(409);
  });

  /** A run row left `running` with its last heartbeat at `heartbeatAt`, as a crashed process leaves it. */
  async function insertRunningRun(
    workflowId: string,
    heartbeatAt: Date,
    trigger: "api" | "tool" = "api",
  ): Promise<string> {
    const [owner] = await builder.deps.db.select().from(workflows).where(eq(workflows.id, workflowId));
    const id = newId("run");
    await builder.deps.db.insert(workflowRuns).values({
      id,
      workspaceId: owner?.workspaceId ?? "",
      workflowId,
      status: "running",
      trigger,
      graph: branchingGraph() as never,
      inputs: { n: 500 },
      startedAt: heartbeatAt,
      heartbeatAt,
    });
    return id;
  }

  const runRow = async (id: string) =>
    (await builder.deps.db.select().from(workflowRuns).where(eq(workflowRuns.id, id)))[0];

  /** Waits until the run has left `running` (a resumed run goes on in the background). */
  async function settledRun(id: string) {
    for (let waited = 0; waited < 20_000; waited += 50) {
      const row = await runRow(id);
      if (row?.status !== "running") return row;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${id} is still running`);
  }

  it("resumes a run cut off by a crash when the service starts, and fails a nested one", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    const longAgo = new Date(Date.now() - 10 * 60_000);
    const id = await insertRunningRun(workflow.id, longAgo);
    const nested = await insertRunningRun(workflow.id, longAgo, "tool");
    const restarted = createBuilderApp(builder.deps);
    await restarted.start();
    const row = await settledRun(id);
    await restarted.stop();
    expect(row).toMatchObject({ status: "succeeded", outputs: { size: "big 500" }, resumes: 1 });
    // A nested run is not resumed: its caller's node runs again and starts a new one.
    expect(await runRow(nested)).toMatchObject({ status: "failed", error: { code: "run_interrupted" } });
  });

  it("lets only one of several processes sweeping at once claim a dead process's run", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    const stale = new Date(Date.now() - 10 * 60_000);
    const id = await insertRunningRun(workflow.id, stale);
    const staleBefore = new Date(Date.now() - 60_000);
    // On PostgreSQL each claim runs on its own pooled connection, so the updates really race.
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => claimInterruptedRuns(builder.deps, staleBefore, 10)),
    );
    const winners = claims.filter((claimed) => claimed.some((run) => run.id === id));
    expect(winners).toHaveLength(1);
    expect(await runRow(id)).toMatchObject({ status: "running", resumes: 1 });
    await failRun(builder.deps, id, { code: "run_interrupted", message: "closed by the test" });
  });

  it("resumes a run cut off just before a restart at once when the process is its database's only one", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());

    // On a shared database a fresh heartbeat may be another live process's run: left alone.
    const shared = await insertRunningRun(workflow.id, new Date());
    const replica = createBuilderApp({ ...builder.deps, isSoleProcess: false });
    await replica.start();
    await replica.stop();
    expect((await runRow(shared))?.status).toBe("running");

    // The embedded database's only process: nothing else can be running it.
    const sole = createBuilderApp({ ...builder.deps, isSoleProcess: true });
    await sole.start();
    const resumed = await settledRun(shared);
    await sole.stop();
    expect(resumed).toMatchObject({ status: "succeeded", resumes: 1 });
  });
});

describe("inbound trigger URL", () => {
  it("starts a run from a POSTed body; a wrong or rotated token is 404 and starts nothing", async () => {
    const workflow = await createWorkflow(alice, branchingGraph());
    const path = new URL(workflow.trigger_url).pathname;
    const waited = await fetch(`${builder.url}${path}?wait=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: 500 }),
    });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({
      status: "succeeded",
      trigger: "hook",
      outputs: { size: "big 500" },
    });

    const background = await fetch(`${builder.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: 1 }),
    });
    expect(background.status).toBe(202);
    const { run_id } = (await background.json()) as { run_id: string };
    await expect
      .poll(
        async () =>
          (
            (await (await builder.request(`/api/runs/${run_id}`, { cookie: alice })).json()) as {
              status: string;
            }
          ).status,
      )
      .toBe("succeeded");

    const tampered = path.replace(/.$/, (ch) => (ch === "A" ? "B" : "A"));
    const before = (await (
      await builder.request(`/api/workflows/${workflow.id}/runs`, { cookie: alice })
    ).json()) as { data: unknown[] };
    for (const bad of [tampered, "/api/hooks/wft_nope", "/api/hooks/anything"]) {
      const response = await fetch(`${builder.url}${bad}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status, bad).toBe(404);
    }
    const rotated = (await (
      await builder.request(`/api/workflows/${workflow.id}/trigger/rotate`, { method: "POST", cookie: alice })
    ).json()) as {
      trigger_url: string;
    };
    expect(rotated.trigger_url).not.toBe(workflow.trigger_url);
    const old = await fetch(`${builder.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"n":1}',
    });
    expect(old.status).toBe(404);
    const after = (await (
      await builder.request(`/api/workflows/${workflow.id}/runs`, { cookie: alice })
    ).json()) as { data: unknown[] };
    expect(after.data.length).toBe(before.data.length);
  });
});

function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? "{}";
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

describe("LLM nodes against a provider speaking the OpenAI protocol", () => {
  let fake: FakeProvider;
  let cookie: string;
  beforeAll(async () => {
    fake = await startFakeOpenAI({
      apiKey: "sk-wf-good-key-0001",
      script: (turn) => {
        const question = lastUserText(turn);
        if (question.includes("as JSON"))
          return { text: '{"city":"Jakarta","population":10}', usage: { input: 12, output: 8 } };
        return { text: `You asked: ${question}`, usage: { input: 7, output: 5 } };
      },
    });
    cookie = (await builder.signUp()).cookie;
    const credential = await builder.request("/api/credentials", {
      method: "POST",
      cookie,
      json: { provider: "openai-compatible", api_key: "sk-wf-good-key-0001", base_url: fake.baseUrl },
    });
    expect(credential.status).toBe(201);
  });
  afterAll(() => fake?.close());

  const llmGraph = (llmData: Record<string, unknown>, outputs: { name: string; value: string }[]) => ({
    nodes: [
      node("start", "start", { inputs: [{ name: "q", type: "string", required: true }] }),
      node("ask", "llm", {
        provider: "openai-compatible",
        model: "fake-model",
        system: "Be brief.",
        ...llmData,
      }),
      node("done", "end", { outputs }),
    ],
    edges: [edge("start", "ask"), edge("ask", "done")],
  });

  it("calls the model with the templated prompt and records its tokens", async () => {
    const workflow = await createWorkflow(
      cookie,
      llmGraph({ prompt: "Question: {{start.q}}" }, [{ name: "answer", value: "{{ask.text}}" }]),
    );
    const run = await runBlocking(cookie, workflow.id, { q: "why is the sky blue?" });
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ answer: "You asked: Question: why is the sky blue?" });
    expect((run as unknown as { usage: unknown }).usage).toEqual({ input_tokens: 7, output_tokens: 5 });
    const sent = fake.turns.at(-1);
    expect(sent?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const usage = (await (await builder.request("/api/usage/calls", { cookie })).json()) as {
      data: { model: string }[];
    };
    expect(usage.data.map((call) => call.model)).toContain("fake-model");
  });

  it("answers structured JSON with json_schema", async () => {
    const workflow = await createWorkflow(
      cookie,
      llmGraph(
        {
          prompt: "Describe {{start.q}} as JSON",
          json_schema: {
            type: "object",
            properties: { city: { type: "string" }, population: { type: "number" } },
            required: ["city", "population"],
          },
        },
        [{ name: "city", value: "{{ask.json.city}}" }],
      ),
    );
    const run = await runBlocking(cookie, workflow.id, { q: "Jakarta" });
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ city: "Jakarta" });
  });

  it("fails the node with the provider's refusal when the key is wrong", async () => {
    const other = await builder.signUp();
    await builder.request("/api/credentials", {
      method: "POST",
      cookie: other.cookie,
      json: { provider: "openai-compatible", api_key: "sk-wrong-key-00000", base_url: fake.baseUrl },
    });
    const workflow = await createWorkflow(
      other.cookie,
      llmGraph({ prompt: "{{start.q}}" }, [{ name: "a", value: "{{ask.text}}" }]),
    );
    const run = await runBlocking(other.cookie, workflow.id, { q: "hi" });
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "provider_rejected_credentials", node_id: "ask" });
  });
});
