import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { manualClock } from "@app/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { createWorkflow, edge, node } from "../../test/workflow-support.ts";

// Human approval: a node under `requires_approval` pauses its run (`waiting`) until a person decides
// (POST /api/runs/{id}/approvals) or its timeout does. The clock is manual and the runner's own
// sweep is stopped, so timeouts are decided only when a test moves the clock and calls the sweep.

const clock = manualClock(new Date("2026-06-01T10:00:00.000Z"));
let builder: TestBuilder;
let target: Server;
let targetUrl: string;
let alice: string;
let bob: string;
/** Every request the local server received: path and parsed body. */
const received: { path: string; body: unknown }[] = [];
const count = (path: string) => received.filter((entry) => entry.path === path).length;

beforeAll(async () => {
  target = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      const text = Buffer.concat(chunks).toString("utf8");
      received.push({ path, body: text ? JSON.parse(text) : null });
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ path, hit: count(path) }));
    });
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  builder = await startTestBuilder({ clock, env: { ALLOW_PRIVATE_URLS: "1" } });
  builder.runner.stop();
  alice = (await builder.signUp()).cookie;
  bob = (await builder.signUp()).cookie;
});

afterAll(async () => {
  await builder.stop();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

interface RunJson {
  id: string;
  status: string;
  outputs: Record<string, unknown> | null;
  error: { code: string; message: string; node_id?: string } | null;
  finished_at: string | null;
  pending?: {
    node_id: string;
    title: string | null;
    input: Record<string, unknown>;
    expires_at: string | null;
  }[];
  nodes: { node_id: string; status: string; inputs: unknown; outputs: Record<string, unknown> | null }[];
}

/**
 * start → before (GET /<p>/before) → send (POST /<p>/send with the run's `to`, requires approval) →
 * done, or with `policy.on_error: "branch"` an error branch `handle` (POST /<p>/handle) as well.
 */
function gatedGraph(prefix: string, policy: Record<string, unknown> = {}) {
  const isBranch = policy.on_error === "branch";
  const isContinued = isBranch || policy.on_error === "continue";
  const failure =
    policy.on_error === "continue" ? { default_output: { json: { path: "not sent" } }, ...policy } : policy;
  const http = (
    id: string,
    method: string,
    path: string,
    extra: Record<string, unknown> = {},
    body?: unknown,
  ) => ({
    ...node(id, "http", {
      title: `Call ${id}`,
      method,
      url: `${targetUrl}/${prefix}/${path}`,
      ...(body === undefined ? {} : { body }),
    }),
    ...extra,
  });
  return {
    nodes: [
      node("start", "start", { inputs: [{ name: "to", type: "string", required: true }] }),
      http("before", "GET", "before"),
      http(
        "send",
        "POST",
        "send",
        { requires_approval: true, ...failure },
        { to: "{{start.to}}", n: "{{before.json.hit}}" },
      ),
      ...(isBranch ? [http("handle", "POST", "handle", {}, { code: "{{send.error.code}}" })] : []),
      node("done", "end", {
        outputs: [
          { name: "sent", value: "{{send.json.path}}" },
          ...(isContinued ? [{ name: "error", value: "{{send.error.code}}" }] : []),
          ...(isBranch ? [{ name: "handled", value: "{{handle.json.path}}" }] : []),
        ],
      }),
    ],
    edges: [
      edge("start", "before"),
      edge("before", "send"),
      edge("send", "done"),
      ...(isBranch ? [{ ...edge("send", "handle"), source_handle: "error" }, edge("handle", "done")] : []),
    ],
  };
}

async function startRun(prefix: string, policy: Record<string, unknown> = {}, cookie = alice) {
  const id = await createWorkflow(builder, cookie, gatedGraph(prefix, policy));
  const response = await builder.request(`/api/workflows/${id}/runs`, {
    method: "POST",
    cookie,
    json: { inputs: { to: "bob@example.com" } },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return { workflowId: id, run: (await response.json()) as RunJson };
}

const decide = (runId: string, body: unknown, cookie = alice) =>
  builder.request(`/api/runs/${runId}/approvals`, { method: "POST", cookie, json: body });

const getRun = async (runId: string, cookie = alice) =>
  (await (await builder.request(`/api/runs/${runId}`, { cookie })).json()) as RunJson;

const statuses = (run: RunJson) =>
  Object.fromEntries(run.nodes.map((entry) => [entry.node_id, entry.status]));

describe("a run reaching a node that requires approval", () => {
  it("waits with the resolved request pending (blocking answer, stored run, event, inbox); approving runs it and the rest", async () => {
    const { run } = await startRun("a");
    expect(run.status).toBe("waiting");
    expect(run.finished_at).toBeNull();
    expect(run.pending).toEqual([
      expect.objectContaining({
        node_id: "send",
        title: "Call send",
        expires_at: null,
        input: expect.objectContaining({
          method: "POST",
          url: `${targetUrl}/a/send`,
          body: { to: "bob@example.com", n: 1 },
        }),
      }),
    ]);
    expect(count("/a/before")).toBe(1);
    expect(count("/a/send")).toBe(0);

    const stored = await getRun(run.id);
    expect(stored.status).toBe("waiting");
    expect(stored.pending?.map((entry) => entry.node_id)).toEqual(["send"]);
    expect(statuses(stored)).toEqual({ start: "succeeded", before: "succeeded", send: "waiting" });

    const events = (await (
      await builder.request("/api/events?type=workflow.run.waiting", { cookie: alice })
    ).json()) as {
      data: { type: string; data: { object: { id: string; status: string; pending: unknown[] } } }[];
    };
    const event = events.data.find((entry) => entry.data.object.id === run.id);
    expect(event?.data.object).toMatchObject({
      status: "waiting",
      pending: [expect.objectContaining({ node_id: "send" })],
    });

    const inbox = (await (await builder.request("/api/approvals", { cookie: alice })).json()) as {
      data: {
        run_id: string;
        workflow_name: string;
        node_id: string;
        title: string;
        input: unknown;
        requested_at: string;
      }[];
    };
    expect(inbox.data.find((entry) => entry.run_id === run.id)).toMatchObject({
      workflow_name: "test workflow",
      node_id: "send",
      title: "Call send",
      input: expect.objectContaining({ body: { to: "bob@example.com", n: 1 } }),
      requested_at: "2026-06-01T10:00:00.000Z",
    });
    const bobsInbox = (await (await builder.request("/api/approvals", { cookie: bob })).json()) as {
      data: unknown[];
    };
    expect(bobsInbox.data).toEqual([]);

    const approved = await decide(run.id, { node_id: "send", decision: "approve" });
    expect(approved.status, await approved.clone().text()).toBe(200);
    const finished = (await approved.json()) as RunJson;
    expect(finished).toMatchObject({ id: run.id, status: "succeeded", outputs: { sent: "/a/send" } });
    expect(received.filter((entry) => entry.path === "/a/send").map((entry) => entry.body)).toEqual([
      { to: "bob@example.com", n: 1 },
    ]);
    expect(count("/a/before")).toBe(1);
    const after = await getRun(run.id);
    expect(after.status).toBe("succeeded");
    expect(statuses(after)).toEqual({
      start: "succeeded",
      before: "succeeded",
      send: "succeeded",
      done: "succeeded",
    });
    const inboxAfter = (await (await builder.request("/api/approvals", { cookie: alice })).json()) as {
      data: { run_id: string }[];
    };
    expect(inboxAfter.data.some((entry) => entry.run_id === run.id)).toBe(false);
  });

  it("approved with an edited input, sends the edited request instead of the proposed one", async () => {
    const { run } = await startRun("b");
    const edited = {
      method: "POST",
      url: `${targetUrl}/b/edited`,
      body: { to: "carol@example.com", note: "checked" },
    };
    const approved = await decide(run.id, { node_id: "send", decision: "approve", input: edited });
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(await approved.json()).toMatchObject({ status: "succeeded", outputs: { sent: "/b/edited" } });
    expect(count("/b/send")).toBe(0);
    expect(received.filter((entry) => entry.path === "/b/edited").map((entry) => entry.body)).toEqual([
      edited.body,
    ]);
    const stored = await getRun(run.id);
    expect(stored.nodes.find((entry) => entry.node_id === "send")?.inputs).toMatchObject(edited);
  });

  it("refuses an edited input that is not a request of the node's type (422), leaving the approval pending", async () => {
    const { run } = await startRun("b2");
    const refused = await decide(run.id, { node_id: "send", decision: "approve", input: { url: 42 } });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: { code: "invalid_approval_input" } });
    expect((await getRun(run.id)).status).toBe("waiting");
  });

  it("rejected under on_error fail (the default), fails the run with approval_rejected without sending", async () => {
    const { run } = await startRun("c");
    const rejected = await decide(run.id, { node_id: "send", decision: "reject" });
    expect(rejected.status).toBe(200);
    expect(await rejected.json()).toMatchObject({
      status: "failed",
      error: { code: "approval_rejected", node_id: "send" },
    });
    expect(count("/c/send")).toBe(0);
    expect(count("/c/before")).toBe(1);
  });

  it("rejected under on_error continue, goes on with the error as the node's output", async () => {
    const { run } = await startRun("d", { on_error: "continue" });
    const rejected = await decide(run.id, { node_id: "send", decision: "reject" });
    expect(await rejected.json()).toMatchObject({
      status: "succeeded",
      outputs: { error: "approval_rejected" },
    });
    expect(count("/d/send")).toBe(0);
  });

  it("rejected under on_error branch, takes the error branch with { error: { code: approval_rejected } }", async () => {
    const { run } = await startRun("e", { on_error: "branch" });
    const rejected = await decide(run.id, { node_id: "send", decision: "reject" });
    expect(await rejected.json()).toMatchObject({ status: "succeeded", outputs: { handled: "/e/handle" } });
    expect(received.filter((entry) => entry.path === "/e/handle").map((entry) => entry.body)).toEqual([
      { code: "approval_rejected" },
    ]);
    expect(count("/e/send")).toBe(0);
  });

  it("answers 409 for a run not waiting or a node not pending, 404 for an unknown or another workspace's run", async () => {
    const { run } = await startRun("f");
    const notPending = await decide(run.id, { node_id: "before", decision: "approve" });
    expect(notPending.status).toBe(409);
    expect(await notPending.json()).toMatchObject({ error: { code: "approval_not_pending" } });
    expect((await decide(run.id, { node_id: "send", decision: "approve" }, bob)).status).toBe(404);
    expect((await decide("run_unknown", { node_id: "send", decision: "approve" })).status).toBe(404);

    expect((await decide(run.id, { node_id: "send", decision: "approve" })).status).toBe(200);
    const again = await decide(run.id, { node_id: "send", decision: "reject" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: "run_not_waiting" } });
    expect(count("/f/send")).toBe(1);
  });

  it("cancels a waiting run: it ends cancelled and leaves the inbox", async () => {
    const { run } = await startRun("g");
    const cancelled = await builder.request(`/api/runs/${run.id}/cancel`, { method: "POST", cookie: alice });
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toMatchObject({ status: "cancelled" });
    const inbox = (await (await builder.request("/api/approvals", { cookie: alice })).json()) as {
      data: { run_id: string }[];
    };
    expect(inbox.data.some((entry) => entry.run_id === run.id)).toBe(false);
    expect((await decide(run.id, { node_id: "send", decision: "approve" })).status).toBe(409);
  });

  it("pages the inbox newest first", async () => {
    const cookie = (await builder.signUp()).cookie;
    const runs: string[] = [];
    for (const prefix of ["p1", "p2", "p3"]) {
      clock.advance(1_000);
      runs.push((await startRun(prefix, {}, cookie)).run.id);
    }
    const first = (await (await builder.request("/api/approvals?limit=2", { cookie })).json()) as {
      data: { run_id: string }[];
      has_more: boolean;
      next_cursor: string;
    };
    expect(first.data.map((entry) => entry.run_id)).toEqual([runs[2], runs[1]]);
    expect(first.has_more).toBe(true);
    const second = (await (
      await builder.request(`/api/approvals?limit=2&cursor=${first.next_cursor}`, { cookie })
    ).json()) as { data: { run_id: string }[]; has_more: boolean };
    expect(second.data.map((entry) => entry.run_id)).toEqual([runs[0]]);
    expect(second.has_more).toBe(false);
  });
});

describe("an approval's timeout", () => {
  it("on_timeout reject: the sweep rejects it once approval_timeout_s has passed, and on_error applies", async () => {
    const { run } = await startRun("t1", {
      approval_timeout_s: 60,
      on_timeout: "reject",
      on_error: "continue",
    });
    expect(run.pending?.[0]?.expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    clock.advance(59_000);
    await builder.runner.expireApprovals();
    expect((await getRun(run.id)).status).toBe("waiting");
    clock.advance(1_000);
    await builder.runner.expireApprovals();
    const after = await getRun(run.id);
    expect(after).toMatchObject({ status: "succeeded", outputs: { error: "approval_rejected" } });
    expect(count("/t1/send")).toBe(0);
    expect(count("/t1/before")).toBe(1);
  });

  it("on_timeout fail: the run fails with approval_timed_out", async () => {
    const { run } = await startRun("t2", {
      approval_timeout_s: 30,
      on_timeout: "fail",
      on_error: "continue",
    });
    clock.advance(30_000);
    await builder.runner.expireApprovals();
    const after = await getRun(run.id);
    expect(after).toMatchObject({ status: "failed", error: { code: "approval_timed_out", node_id: "send" } });
    expect(statuses(after).send).toBe("failed");
    expect(count("/t2/send")).toBe(0);
    expect((await decide(run.id, { node_id: "send", decision: "approve" })).status).toBe(409);
    const events = (await (
      await builder.request("/api/events?type=workflow.run.failed", { cookie: alice })
    ).json()) as { data: { data: { object: { id: string; error: { code: string } } } }[] };
    expect(events.data.find((entry) => entry.data.object.id === run.id)?.data.object.error.code).toBe(
      "approval_timed_out",
    );
  });
});

describe("a builder restarted while a run waits", () => {
  it("keeps the run waiting (not interrupted); approving on the new process completes it, completed nodes ran once", async () => {
    const { run } = await startRun("r");
    await builder.restart();
    builder.runner.stop();
    // The client's pooled keep-alive sockets to the old server are dead: let them fail here.
    for (let attempt = 0; attempt < 5; attempt += 1)
      await fetch(`${builder.url}/healthz`).catch(() => undefined);
    const stored = await getRun(run.id);
    expect(stored.status).toBe("waiting");
    const approved = await decide(run.id, { node_id: "send", decision: "approve" });
    expect(await approved.json()).toMatchObject({ status: "succeeded", outputs: { sent: "/r/send" } });
    expect({ before: count("/r/before"), send: count("/r/send") }).toEqual({ before: 1, send: 1 });
  });
});
