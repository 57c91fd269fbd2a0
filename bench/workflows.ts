// npm run bench -- workflows [--seconds 10] [--connections 20] [--db pglite|postgres] [--processes 1]
// Runs of a 7-node workflow (start → 3 tool nodes → condition → two ends) through the HTTP API, with
// every run recorded, next to the engine alone calling the same kind of executors in-process.
import { freePort } from "@app/testing";
import { benchDatabase, benchUser, load, option, printTable, startService, temporaryDataDir } from "./lib.ts";

const seconds = Number(option("seconds", "10"));
const connections = Number(option("connections", "20"));
const dbKind = option("db", "pglite");
const processes = Number(option("processes", "1"));

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-wf"),
  PUBLIC_URL: base,
};
const database = await benchDatabase(dbKind, processes);
Object.assign(env, database.env);

const tool = (id: string) => ({
  id,
  type: "tool",
  position: { x: 0, y: 0 },
  data: { tool: "current_time", args: {} },
});
const graph = {
  nodes: [
    {
      id: "start",
      type: "start",
      position: { x: 0, y: 0 },
      data: { inputs: [{ name: "n", type: "number", required: true }] },
    },
    tool("t1"),
    tool("t2"),
    tool("t3"),
    {
      id: "check",
      type: "condition",
      position: { x: 0, y: 0 },
      data: {
        cases: [
          { id: "big", logic: "and", conditions: [{ left: "{{start.n}}", operator: "gt", right: "10" }] },
        ],
      },
    },
    {
      id: "big",
      type: "end",
      position: { x: 0, y: 0 },
      data: { outputs: [{ name: "at", value: "{{t3.iso}}" }] },
    },
    {
      id: "small",
      type: "end",
      position: { x: 0, y: 0 },
      data: { outputs: [{ name: "at", value: "{{t1.iso}}" }] },
    },
  ],
  edges: [
    { id: "e1", source: "start", target: "t1" },
    { id: "e2", source: "t1", target: "t2" },
    { id: "e3", source: "t2", target: "t3" },
    { id: "e4", source: "t3", target: "check" },
    { id: "e5", source: "check", target: "big", source_handle: "big" },
    { id: "e6", source: "check", target: "small", source_handle: "else" },
  ],
};

const builder = await startService("apps/builder/src/server.ts", env, `${base}/healthz`);
try {
  const { key } = await benchUser(base);
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const created = await fetch(`${base}/api/workflows`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: "bench", graph }),
  });
  const workflow = (await created.json()) as { id: string };
  const common = { connections, seconds };
  const baseline = await load("GET /healthz (same server, no work)", { ...common, url: `${base}/healthz` });
  const runs = await load("POST /api/workflows/{id}/runs (7 nodes, recorded)", {
    ...common,
    url: `${base}/api/workflows/${workflow.id}/runs`,
    method: "POST",
    headers: auth,
    body: JSON.stringify({ inputs: { n: 42 } }),
  });
  console.log(
    `\nworkflow runs through the API: ${connections} concurrent clients, ${seconds}s each, database ${dbKind}, ${processes} builder process(es)\n`,
  );
  printTable(
    ["case", "requests/s", "p50 ms", "p99 ms", "errors", "non-2xx"],
    [baseline, runs].map((r) => [r.name, r.requestsPerSecond, r.p50, r.p99, r.errors, r.non2xx]),
  );
  console.log(
    "\nTarget: ≥ 500 runs/s on 2 cores. Engine overhead per node: npm run bench -- workflows-engine",
  );
} finally {
  await builder.stop();
  await database.drop();
}
