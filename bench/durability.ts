// npm run bench -- durability [--runs 200] [--kills 3] [--node-ms 40]
// Runs that outlive their process: 200 runs of a 5-node workflow (start → three HTTP nodes → end)
// while the builder is SIGKILLed at random moments, three times, and started again each time. Every
// HTTP node calls a counting server on loopback with the Idempotency-Key the builder sends
// (`<run id>:<node id>`), so the server sees which node executions were repeated. Expected: every run
// ends `succeeded`; a node is repeated only when it was in flight at a kill (at least once for the
// node running at the crash, exactly once for every node recorded before it).
// Baseline: the same runs with no kill, in the same run of the bench.
import { createServer } from "node:http";
import { freePort } from "@app/testing";
import { benchUser, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const runs = Number(option("runs", "200"));
const kills = Number(option("kills", "3"));
const nodeMs = Number(option("node-ms", "40"));

/** Idempotency keys seen, with how many requests carried each and how many were answered. */
const seen = new Map<string, { requests: number; answered: number }>();
const counter = createServer((request, response) => {
  const key = String(request.headers["idempotency-key"] ?? "none");
  const entry = seen.get(key) ?? { requests: 0, answered: 0 };
  entry.requests += 1;
  seen.set(key, entry);
  setTimeout(() => {
    response.end(JSON.stringify({ ok: true }), () => {
      entry.answered += 1;
    });
  }, nodeMs);
});
const counterPort = await freePort();
await new Promise<void>((resolve) => counter.listen(counterPort, "127.0.0.1", resolve));

const http = (id: string) => ({
  id,
  type: "http",
  position: { x: 0, y: 0 },
  data: { method: "POST", url: `http://127.0.0.1:${counterPort}/${id}`, body: { step: id } },
});
const graph = {
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    http("h1"),
    http("h2"),
    http("h3"),
    {
      id: "done",
      type: "end",
      position: { x: 0, y: 0 },
      data: { outputs: [{ name: "status", value: "{{h3.status}}" }] },
    },
  ],
  edges: [
    { id: "e1", source: "start", target: "h1" },
    { id: "e2", source: "h1", target: "h2" },
    { id: "e3", source: "h2", target: "h3" },
    { id: "e4", source: "h3", target: "done" },
  ],
};

interface Outcome {
  succeeded: number;
  other: Record<string, number>;
  repeated: number;
  seconds: number;
}

async function scenario(killCount: number): Promise<Outcome> {
  seen.clear();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    DATA_DIR: temporaryDataDir("bench-durability"),
    PUBLIC_URL: base,
    ALLOW_PRIVATE_URLS: "1",
    // A killed process's runs are taken over after its lease; the embedded database resumes them at start.
    WORKFLOW_RUN_LEASE_SECONDS: "5",
  };
  let builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
  const started = performance.now();
  try {
    const { key } = await benchUser(base);
    const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
    const created = await fetch(`${base}/api/workflows`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Durable", graph }),
    });
    const { id: workflowId } = (await created.json()) as { id: string };
    const runIds: string[] = [];
    /** Starts a run and returns its id from the stream's first event; the run goes on without the client. */
    const startRun = async (): Promise<void> => {
      for (;;) {
        try {
          const response = await fetch(`${base}/api/workflows/${workflowId}/runs`, {
            method: "POST",
            headers: { ...auth, accept: "text/event-stream" },
            body: JSON.stringify({ inputs: {} }),
          });
          const reader = response.body?.getReader();
          let text = "";
          while (reader) {
            const { done, value } = await reader.read();
            if (done) break;
            text += new TextDecoder().decode(value);
            const match = /"run_id":"(run_[0-9a-z]+)"/.exec(text);
            if (match?.[1]) {
              runIds.push(match[1]);
              await reader.cancel();
              return;
            }
          }
        } catch {
          // The builder is down (killed): ask again once it is back.
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const killTimes = Array.from({ length: killCount }, () => Math.random()).sort();
    let next = 0;
    const starter = (async () => {
      for (let i = 0; i < runs; i++) {
        await startRun();
        // Kill at random moments spread over the runs being started.
        while (next < killTimes.length && (killTimes[next] ?? 1) <= (i + 1) / runs) {
          next += 1;
          builder.process.kill("SIGKILL");
          await new Promise((resolve) => builder.process.once("exit", resolve));
          builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
        }
      }
    })();
    await starter;
    // Wait for every run to end.
    const statuses = new Map<string, string>();
    const deadline = Date.now() + 300_000;
    while (statuses.size < runIds.length && Date.now() < deadline) {
      for (const id of runIds) {
        if (statuses.has(id)) continue;
        const run = (await (await fetch(`${base}/api/runs/${id}`, { headers: auth })).json()) as {
          status: string;
        };
        if (run.status !== "running") statuses.set(id, run.status);
      }
      if (statuses.size < runIds.length) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const other: Record<string, number> = {};
    let succeeded = 0;
    for (const id of runIds) {
      const status = statuses.get(id) ?? "still running";
      if (status === "succeeded") succeeded += 1;
      else other[status] = (other[status] ?? 0) + 1;
    }
    const repeated = [...seen.values()].filter((entry) => entry.requests > 1).length;
    return { succeeded, other, repeated, seconds: (performance.now() - started) / 1000 };
  } finally {
    await builder.stop();
  }
}

const baseline = await scenario(0);
const killed = await scenario(kills);
counter.close();

console.log(
  `\ndurability benchmark: ${runs} runs of start → 3 HTTP nodes (${nodeMs} ms each) → end, embedded database\n`,
);
printTable(
  ["case", "runs succeeded", "not succeeded", "node executions repeated (in flight at a kill)", "seconds"],
  [
    [
      "no kill (baseline)",
      `${baseline.succeeded}/${runs}`,
      JSON.stringify(baseline.other),
      baseline.repeated,
      baseline.seconds,
    ],
    [
      `SIGKILL ×${kills} at random moments`,
      `${killed.succeeded}/${runs}`,
      JSON.stringify(killed.other),
      killed.repeated,
      killed.seconds,
    ],
  ],
);
