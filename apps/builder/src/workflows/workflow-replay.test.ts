import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, node, type RunJson, runWorkflow } from "../../test/workflow-support.ts";

// POST /api/runs/{id}/replay: a new run that keeps the recorded outputs of the nodes before from_node.

let builder: TestBuilder;
let target: Server;
let targetUrl: string;
let alice: string;
let bob: string;
const hits = new Map<string, number>();
/** Paths that drop the connection until the test lets them answer. */
const broken = new Set<string>();

beforeAll(async () => {
  target = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (broken.has(path)) {
      response.socket?.destroy();
      return;
    }
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ path, hit: hits.get(path) }));
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});

afterAll(async () => {
  await builder.stop();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

/** start → first → second → done, each HTTP node calling its own path on the local server. */
function chain(prefix: string) {
  const call = (id: string) => node(id, "http", { method: "GET", url: `${targetUrl}/${prefix}/${id}` });
  return {
    nodes: [
      node("start", "start", { inputs: [{ name: "n", type: "number", required: true }] }),
      call("first"),
      call("second"),
      node("done", "end", {
        outputs: [
          { name: "first", value: "{{first.json.hit}}" },
          { name: "second", value: "{{second.json.hit}}" },
        ],
      }),
    ],
    edges: [
      { id: "e1", source: "start", target: "first" },
      { id: "e2", source: "first", target: "second" },
      { id: "e3", source: "second", target: "done" },
    ],
  };
}

const replay = (cookie: string, runId: string, body?: unknown) =>
  builder.request(`/api/runs/${runId}/replay`, { method: "POST", cookie, ...(body ? { json: body } : {}) });

describe("replaying a run", () => {
  it("replays from the failed node by default: the nodes before it are not executed again", async () => {
    const id = await createWorkflow(builder, alice, chain("a"));
    broken.add("/a/second");
    const failed = await runWorkflow(builder, alice, id, { n: 7 });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: "http_request_failed", node_id: "second" });
    broken.delete("/a/second");

    const response = await replay(alice, failed.id);
    expect(response.status, await response.clone().text()).toBe(201);
    const replayed = (await response.json()) as RunJson & { replay_of: string; inputs: unknown };
    expect(replayed).toMatchObject({
      status: "succeeded",
      replay_of: failed.id,
      inputs: { n: 7 },
      outputs: { first: 1, second: 2 },
    });
    expect(hits.get("/a/first")).toBe(1);
    const stored = (await (
      await builder.request(`/api/runs/${replayed.id}`, { cookie: alice })
    ).json()) as RunJson & {
      replay_of: string;
    };
    expect(stored.replay_of).toBe(failed.id);
    expect(Object.fromEntries(stored.nodes.map((entry) => [entry.node_id, entry.status]))).toEqual({
      start: "succeeded",
      first: "succeeded",
      second: "succeeded",
      done: "succeeded",
    });
  });

  it("replays from a named node, running it and everything after it again", async () => {
    const id = await createWorkflow(builder, alice, chain("b"));
    const original = await runWorkflow(builder, alice, id, { n: 1 });
    expect(original.status).toBe("succeeded");
    const response = await replay(alice, original.id, { from_node: "first" });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ status: "succeeded", outputs: { first: 2, second: 2 } });
  });

  it("answers 404 for another workspace's run, 422 for an unknown node or one the run never reached", async () => {
    const id = await createWorkflow(builder, alice, chain("c"));
    broken.add("/c/first");
    const failed = await runWorkflow(builder, alice, id, { n: 1 });
    broken.delete("/c/first");
    expect(failed.error).toMatchObject({ node_id: "first" });

    expect((await replay(bob, failed.id)).status).toBe(404);
    const unknown = await replay(alice, failed.id, { from_node: "nope" });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({
      error: { code: "replay_node_unknown", param: "from_node" },
    });
    const notReached = await replay(alice, failed.id, { from_node: "second" });
    expect(notReached.status).toBe(422);
    expect(await notReached.json()).toMatchObject({ error: { code: "replay_node_not_reached" } });
    expect(hits.get("/c/second")).toBeUndefined();
  });
});
