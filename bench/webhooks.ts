// `npm run bench -- webhooks [--seconds N] [--skip-postgres]`: webhook delivery throughput and latency
// of the payment service on PGlite and on PostgreSQL with 1 and 2 worker processes, next to a baseline
// of plain signed POSTs from one process to the same receiver. Everything runs on loopback.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { withDatabase } from "@app/db/testing";
import { freePort } from "@app/testing";
import { httpSender, signatureHeader } from "@app/webhooks";
import pg from "pg";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    "skip-postgres": { type: "boolean", default: false },
    /** Processes serving the API on PostgreSQL (PAYMENTS_WEB_CONCURRENCY). */
    "api-processes": { type: "string", default: "2" },
    "database-url": {
      type: "string",
      default: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
    },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = 16; // concurrent API clients creating events
const PACED_RATE = 500; // events/s for the latency target
const WARMUP_SECONDS = 5; // unmeasured load before each measured run
const LIST_CLIENTS = 20;
const BACKLOG = 5000; // deliveries drained to measure delivery capacity on PostgreSQL
const root = fileURLToPath(new URL("..", import.meta.url));
const secretKey = `sk_test_${randomBytes(24).toString("base64url")}`;
// A producer with a bounded connection pool, as any HTTP client has: in the paced run, requests
// beyond it wait in the client (the commit → arrival latency starts at the commit, so that wait is
// not counted, but the accepted rate shows it). Unbounded, a burst opened hundreds of connections
// and the API spent its time on them.
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

interface Result {
  setup: string;
  eventsPerSecond: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  note: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function request(
  url: string,
  init: { method: string; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: init.method,
      agent,
      headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.end(init.body);
  });
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await request(`${url}/readyz`, { method: "GET" })).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function startProcess(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null) child.kill("SIGKILL");
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: values["database-url"] });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The verifying receiver in its own process (see webhook-receiver-process.ts). */
async function startReceiverProcess(
  onArrivals: (arrivals: [string, number][], invalid: number) => void,
): Promise<{ url: string; useSecret(secret: string): void; close(): Promise<void> }> {
  const child = fork(join(root, "bench/webhook-receiver-process.ts"), {
    cwd: root,
    execArgv: ["--import", "tsx"],
  });
  let closed: () => void = () => {};
  const url = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.on(
      "message",
      (message: { type: string; url?: string; arrivals?: [string, number][]; invalid?: number }) => {
        if (message.type === "ready") resolve(message.url ?? "");
        if (message.type === "arrivals") onArrivals(message.arrivals ?? [], message.invalid ?? 0);
        if (message.type === "closed") closed();
      },
    );
  });
  return {
    url,
    useSecret: (secret) => child.send({ type: "secret", secret }),
    close: async () => {
      const done = new Promise<void>((resolve) => {
        closed = resolve;
      });
      child.send({ type: "close" });
      await done;
    },
  };
}

/** One setup: the service (and workers) up, an endpoint registered at a verifying receiver. */
async function runSetup(setup: {
  name: string;
  databaseUrl?: string;
  workers: number;
  paced?: boolean;
}): Promise<{ result: Result; listRate?: number; drainRate?: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-webhooks-"));
  const url = `http://127.0.0.1:${port}`;
  // A delivery can arrive before the client has processed the 201 that follows the commit, so
  // arrivals and commits are recorded separately and matched at the end.
  const committedAt = new Map<string, number>();
  const arrivedAt = new Map<string, number>();
  let invalid = 0;
  let backlogTracker: ((paymentId: string, at: number) => void) | undefined;
  const receiver = await startReceiverProcess((arrivals, invalidCount) => {
    invalid += invalidCount;
    for (const [paymentId, at] of arrivals) {
      backlogTracker?.(paymentId, at);
      if (!arrivedAt.has(paymentId)) arrivedAt.set(paymentId, at);
    }
  });
  const env: Record<string, string> = {
    PAYMENTS_PORT: String(port),
    DATA_DIR: dataDir,
    PAYMENTS_SECRET_KEY: secretKey,
    PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: "1",
    PAYMENTS_WORKER_CONCURRENCY: "128",
    PAYMENTS_DB_POOL_SIZE: "16",
    ...(setup.databaseUrl
      ? {
          PAYMENTS_DATABASE_URL: setup.databaseUrl,
          PAYMENTS_INLINE_WORKER: "0",
          PAYMENTS_WEB_CONCURRENCY: values["api-processes"],
        }
      : {}),
  };
  const service = startProcess("apps/payments/src/server.ts", env);
  const workers: ChildProcess[] = [];
  try {
    await waitForHttp(url);
    const endpoint = await request(`${url}/v1/webhook_endpoints`, {
      method: "POST",
      body: JSON.stringify({ url: receiver.url, enabled_events: ["payment.pending"] }),
    });
    const registered = JSON.parse(endpoint.body) as { id: string; secret: string };
    receiver.useSecret(registered.secret);

    // Delivery capacity on its own: a backlog written straight into the tables before the workers
    // start, drained by them (the API's own write rate does not limit this number).
    let drainRate: number | undefined;
    const backlogArrivals: number[] = [];
    if (setup.databaseUrl && !setup.paced) {
      const client = new pg.Client({ connectionString: setup.databaseUrl });
      await client.connect();
      try {
        await client.query(
          `insert into events (id, owner_id, environment, type, xid, seq, created_at, body)
           select 'evt_backlog' || lpad(g::text, 19, '0'), w.owner_id, 'test', 'payment.pending', 0, g, now(),
             json_build_object('id', 'evt_backlog' || lpad(g::text, 19, '0'), 'object', 'event', 'type', 'payment.pending',
               'environment', 'test', 'created', 0, 'data', json_build_object('object', json_build_object('id', 'pay_backlog' || g)))::text
           from generate_series(1, $1::int) g, webhook_endpoints w where w.id = $2`,
          [BACKLOG, registered.id],
        );
        await client.query(
          `insert into webhook_deliveries (id, owner_id, environment, event_id, event_type, endpoint_id, status, next_attempt_at, created_at, updated_at)
           select 'wd_backlog' || g, w.owner_id, 'test', 'evt_backlog' || lpad(g::text, 19, '0'), 'payment.pending', w.id, 'pending', now(), now(), now()
           from generate_series(1, $1::int) g, webhook_endpoints w where w.id = $2`,
          [BACKLOG, registered.id],
        );
      } finally {
        await client.end();
      }
      backlogTracker = (paymentId, at) => {
        if (paymentId.startsWith("pay_backlog")) backlogArrivals.push(at);
      };
    }
    for (let i = 0; i < setup.workers; i++) {
      workers.push(startProcess("apps/payments/src/worker.ts", { ...env, PAYMENTS_DB_POOL_SIZE: "4" }));
    }
    if (backlogTracker) {
      const deadline = Date.now() + 120_000;
      while (backlogArrivals.length < BACKLOG && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const first = Math.min(...backlogArrivals);
      const last = Math.max(...backlogArrivals);
      drainRate = (backlogArrivals.length * 1000) / Math.max(1, last - first);
      backlogTracker = undefined;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1000)); // let workers connect
    }

    const createOne = async (isMeasured: boolean) => {
      const response = await request(`${url}/v1/payments`, {
        method: "POST",
        body: JSON.stringify({ amount: 150000, method: "qris" }),
      });
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.body}`);
      if (isMeasured) committedAt.set((JSON.parse(response.body) as { id: string }).id, Date.now());
    };

    /** The run's load for `seconds`; answers how many events were accepted. */
    const drive = async (seconds: number, isMeasured: boolean): Promise<number> => {
      const from = Date.now();
      const until = from + seconds * 1000;
      let accepted = 0;
      if (setup.paced) {
        // Open loop: one event every 2 ms regardless of how fast the previous ones were answered.
        const inFlight = new Set<Promise<void>>();
        for (let i = 0; Date.now() < until; i++) {
          const due = from + (i * 1000) / PACED_RATE;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const p: Promise<void> = createOne(isMeasured).then(() => {
            accepted += 1;
            inFlight.delete(p);
          });
          inFlight.add(p);
        }
        await Promise.all(inFlight);
      } else {
        await Promise.all(
          Array.from({ length: CLIENTS }, async () => {
            while (Date.now() < until) {
              await createOne(isMeasured);
              accepted += 1;
            }
          }),
        );
      }
      return accepted;
    };

    // Unmeasured warm-up at the same load: the service and worker processes were just started, and
    // their first seconds (module loading, JIT, connections) are start-up cost, not delivery latency.
    await drive(WARMUP_SECONDS, false);
    const started = Date.now();
    const accepted = await drive(SECONDS, true);
    const windowMs = Date.now() - started;
    // Drain: wait until the backlog is delivered (bounded).
    const drainDeadline = Date.now() + Math.max(30_000, SECONDS * 2000);
    const undelivered = () => [...committedAt.keys()].filter((id) => !arrivedAt.has(id)).length;
    while (undelivered() > 0 && Date.now() < drainDeadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    // On PostgreSQL the event's own timestamp (taken in its transaction, just before commit) is the
    // start; the 201 can lag the commit by a lot when the API is saturated. PGlite is inside the
    // service process, so there the 201's arrival stands in for the commit.
    if (setup.databaseUrl) {
      const client = new pg.Client({ connectionString: setup.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ payment: string; ms: string }>(
          "select body::json->'data'->'object'->>'id' as payment, (extract(epoch from created_at) * 1000)::text as ms from events",
        );
        for (const row of rows)
          if (committedAt.has(row.payment)) committedAt.set(row.payment, Number(row.ms));
      } finally {
        await client.end();
      }
    }
    const latencies: number[] = [];
    let lastDeliveryAt = started;
    for (const [id, committed] of committedAt) {
      const arrived = arrivedAt.get(id);
      if (arrived === undefined) continue;
      latencies.push(Math.max(0, arrived - committed));
      lastDeliveryAt = Math.max(lastDeliveryAt, arrived);
    }
    const delivered = latencies.length;
    const missing = undelivered();
    const deliveryMs = Math.max(windowMs, lastDeliveryAt - started);

    let listRate: number | undefined;
    if (!setup.paced) listRate = await measureList(url);

    if (process.env.BENCH_DEBUG) {
      const bySecond = new Map<number, number[]>();
      for (const [id, committed] of committedAt) {
        const arrived = arrivedAt.get(id);
        if (arrived === undefined) continue;
        const second = Math.floor((committed - started) / 1000);
        bySecond.set(second, [...(bySecond.get(second) ?? []), arrived - committed]);
      }
      for (const [second, values] of [...bySecond].sort((a, b) => a[0] - b[0])) {
        values.sort((a, b) => a - b);
        console.error(
          setup.name,
          second,
          values.length,
          percentile(values, 50),
          percentile(values, 99),
          values[values.length - 1],
        );
      }
    }
    latencies.sort((a, b) => a - b);
    return {
      result: {
        setup: setup.name,
        eventsPerSecond: (accepted * 1000) / windowMs,
        deliveriesPerSecond: (delivered * 1000) / deliveryMs,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        note: `${accepted} events, ${delivered} delivered${missing ? `, ${missing} undelivered at timeout` : ""}${invalid ? `, ${invalid} bad signatures` : ""}, drained in ${((lastDeliveryAt - started - windowMs) / 1000).toFixed(1)} s`,
      },
      ...(listRate === undefined ? {} : { listRate }),
      ...(drainRate === undefined ? {} : { drainRate }),
    };
  } finally {
    for (const worker of workers) await stopProcess(worker);
    await stopProcess(service);
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `GET /v1/events?limit=100` requests/s with 20 concurrent clients (closed loop). */
async function measureList(url: string): Promise<number> {
  const seconds = Math.min(SECONDS, 10);
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: LIST_CLIENTS }, async () => {
      while (Date.now() < until) {
        const response = await request(`${url}/v1/events?limit=100`, { method: "GET" });
        if (response.status !== 200) throw new Error(`list failed: ${response.status}`);
        done += 1;
      }
    }),
  );
  return done / seconds;
}

/** The baseline: plain signed POSTs from one process to the same kind of verifying receiver. */
async function baseline(): Promise<Result> {
  const secret = `whsec_${randomBytes(32).toString("hex")}`;
  const latencies: number[] = [];
  const receiver = await startReceiverProcess(() => {});
  receiver.useSecret(secret);
  const send = httpSender({ allowPrivate: true });
  const body = JSON.stringify({
    id: "evt_baseline",
    object: "event",
    type: "payment.pending",
    data: { object: { id: "pay_x" } },
  });
  const started = Date.now();
  const until = started + SECONDS * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < until) {
        const t0 = performance.now();
        const headers = {
          "content-type": "application/json",
          "x-service-signature": signatureHeader([secret], body, Math.floor(Date.now() / 1000)),
        };
        const response = await send({ url: receiver.url, headers, body, timeoutMs: 10_000 });
        if (response.status !== 200) throw new Error(`baseline got ${response.status}`);
        latencies.push(performance.now() - t0);
        sent += 1;
      }
    }),
  );
  const windowMs = Date.now() - started;
  await receiver.close();
  latencies.sort((a, b) => a - b);
  return {
    setup: "baseline: signed POSTs, 1 process, 64 in flight",
    eventsPerSecond: Number.NaN,
    deliveriesPerSecond: (sent * 1000) / windowMs,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    note: "request → answer",
  };
}

const fmt = (n: number, digits = 0) => (Number.isNaN(n) ? "—" : n.toFixed(digits));

const results: Result[] = [];
const listRates: [string, number][] = [];
const drainRates: [string, number][] = [];
console.error(`webhooks bench: ${SECONDS} s per run; this takes a few minutes`);
results.push(await baseline());
const pglite = await runSetup({ name: "PGlite, worker in the service process", workers: 0 });
results.push(pglite.result);
if (pglite.listRate !== undefined) listRates.push(["PGlite", pglite.listRate]);

if (!values["skip-postgres"]) {
  for (const [workers, paced] of [
    [1, false],
    [2, false],
    [2, true],
  ] as const) {
    const name = `bench_webhooks_${randomBytes(4).toString("hex")}`;
    await adminQuery(`create database ${name}`);
    try {
      const run = await runSetup({
        name: paced
          ? `PostgreSQL, ${workers} worker processes, paced at ${PACED_RATE} events/s`
          : `PostgreSQL, ${workers} worker process${workers > 1 ? "es" : ""}`,
        databaseUrl: withDatabase(values["database-url"], name),
        workers,
        paced,
      });
      results.push(run.result);
      if (run.drainRate !== undefined) {
        drainRates.push([`PostgreSQL, ${workers} worker process${workers > 1 ? "es" : ""}`, run.drainRate]);
      }
      if (run.listRate !== undefined)
        listRates.push([`PostgreSQL (${workers} worker${workers > 1 ? "s" : ""})`, run.listRate]);
    } finally {
      await adminQuery(`drop database if exists ${name} with (force)`);
    }
  }
}

console.log(
  `\n### Webhook delivery (${SECONDS} s per run, ${CLIENTS} API clients, loopback receiver verifying every signature)\n`,
);
console.log(
  "| Setup | Events/s accepted | Deliveries/s completed | First-attempt p50 (ms) | p99 (ms) | Notes |",
);
console.log("|---|---:|---:|---:|---:|---|");
for (const r of results) {
  console.log(
    `| ${r.setup} | ${fmt(r.eventsPerSecond)} | ${fmt(r.deliveriesPerSecond)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.note} |`,
  );
}
console.log(
  `\n### Delivery capacity: a backlog of ${BACKLOG} deliveries drained (first to last arrival, signatures verified)\n`,
);
console.log("| Setup | Deliveries/s |");
console.log("|---|---:|");
for (const [name, rate] of drainRates) console.log(`| ${name} | ${fmt(rate)} |`);
console.log(`\n### GET /v1/events?limit=100 with ${LIST_CLIENTS} concurrent clients\n`);
console.log("| Database | Requests/s |");
console.log("|---|---:|");
for (const [database, rate] of listRates) console.log(`| ${database} | ${fmt(rate)} |`);
console.log(
  "\nTargets on PostgreSQL: ≥ 1,000 deliveries/s; p99 first-attempt latency ≤ 250 ms at 500 events/s.",
);
agent.destroy();
process.exit(0);
