// `npm start`: both services on this machine with their embedded databases, from the compiled
// bundles (rebuilt first only when their sources changed). `npm run dev` runs the TypeScript sources
// through the tsx loader instead, next to the studio's Vite dev server.
// Each service runs in its own process (each PGlite is one in-process connection) under a supervisor:
// one that exits unexpectedly is started again with backoff while the other keeps serving; Ctrl-C
// stops both. The builder is a merchant of the payment service: both get the same secret key
// (PAYMENTS_SECRET_KEY, or one generated once into DATA_DIR), the payment service makes sure that
// merchant exists, and the builder registers its webhook endpoint there itself.
// Run by Node's own type stripping (no loader, so a warm start loads no compiler).
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { setPriority } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { newSecretToken, readOrCreateSecretFile } from "@app/core";
import {
  buildIfStale,
  buildWidgetIfStale,
  compiledEntry,
  root,
  SERVICE_ENTRIES,
  type ServiceName,
} from "./build.ts";
import { untilListening } from "./listening.ts";
import { type ServiceProcess, Supervisor } from "./supervisor.ts";

const { values: options } = parseArgs({ options: { dev: { type: "boolean", default: false } } });
const isDev = options.dev;

const dataDir = resolve(process.env.DATA_DIR || "./data");
const paymentsSecretKey =
  process.env.PAYMENTS_SECRET_KEY ||
  readOrCreateSecretFile(join(dataDir, "payments_secret_key"), () => newSecretToken("sk_test"));
const shared = { ...process.env, DATA_DIR: dataDir, PAYMENTS_SECRET_KEY: paymentsSecretKey };

/** Embedded databases not created yet: a first start makes them from one initdb (see seed-databases.ts). */
const unseededDataDirs = [
  ...(process.env.DATABASE_URL ? [] : [join(dataDir, "builder", "db")]),
  ...(process.env.PAYMENTS_DATABASE_URL ? [] : [join(dataDir, "payments", "db")]),
].filter((dir) => !existsSync(dir) || readdirSync(dir).length === 0);

/**
 * A child process, so PGlite's memory goes with it. A failure is only logged: each service then
 * creates its own database as it would without this.
 */
function seedDatabases(): Promise<void> | undefined {
  if (unseededDataDirs.length === 0) return undefined;
  const child = spawn(process.execPath, [join(root, "scripts/seed-databases.ts"), ...unseededDataDirs], {
    cwd: root,
    stdio: "inherit",
  });
  return new Promise((done) => {
    child.on("error", (error) => {
      console.error(`[start] the databases could not be prepared: ${error.message}`);
      done();
    });
    child.on("exit", (code) => {
      if (code !== 0)
        console.error(
          `[start] preparing the databases failed (exit code ${code}); each service creates its own.`,
        );
      done();
    });
  });
}

try {
  // A first start's initdb runs while the bundles build: neither needs the other.
  await Promise.all([isDev ? buildWidgetIfStale() : buildIfStale(), seedDatabases()]);
} catch (error) {
  console.error(`The build failed: ${(error as Error).message}`);
  process.exit(1);
}

/**
 * V8's young generation grows to 3 × 32 MB by default and is not given back: at 8 MB per semi-space
 * each service holds about 100 MB less at idle, for more frequent (and shorter) minor collections.
 * NODE_OPTIONS with its own --max-semi-space-size wins.
 */
const heapFlags = /--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? "")
  ? []
  : ["--max-semi-space-size=8"];

function serviceProcess(name: ServiceName, env: NodeJS.ProcessEnv): ServiceProcess {
  const source = join(root, SERVICE_ENTRIES[name].dir, "src", "server.ts");
  return {
    name,
    command: process.execPath,
    // No --enable-source-maps: with the dependencies bundled, Node would parse and keep a 17 MB map
    // (about 120 MiB per service, 0.7 s of each start). Stack traces name the bundle's functions and
    // lines; NODE_OPTIONS=--enable-source-maps maps them back to the TypeScript when needed.
    args: isDev ? ["--import", "tsx", source] : [...heapFlags, compiledEntry(name)],
    env,
    cwd: root,
  };
}

const services: ServiceProcess[] = [
  serviceProcess("payments", {
    ...shared,
    // The builder's webhook endpoint is on this machine's loopback, which the service refuses by default.
    PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: process.env.PAYMENTS_ALLOW_PRIVATE_WEBHOOKS || "1",
  }),
  serviceProcess("builder", shared),
];
if (isDev) {
  services.push({
    name: "studio",
    command: process.execPath,
    args: [join(root, "node_modules/vite/bin/vite.js")],
    // Its proxy sends /api to the builder on PORT.
    env: process.env,
    cwd: join(root, "apps/studio"),
  });
}

// Beyond the services' own drain (SHUTDOWN_TIMEOUT_SECONDS) and their workers' stop.
const shutdownSeconds = Number(process.env.SHUTDOWN_TIMEOUT_SECONDS || 10);
const supervisor = new Supervisor({
  services,
  log: (line) => console.error(`[start] ${line}`),
  stopGraceMs: ((Number.isFinite(shutdownSeconds) ? shutdownSeconds : 10) + 20) * 1000,
});
supervisor.start();

const ports = {
  builder: Number(process.env.PORT ?? 3000),
  payments: Number(process.env.PAYMENTS_PORT ?? 4000),
};
console.log(
  `Starting: builder${isDev ? "" : " and studio"} on http://localhost:${ports.builder}, ` +
    `payment service on http://localhost:${ports.payments}` +
    `${isDev ? ", studio dev server on http://localhost:5173" : ""}. Ctrl-C stops ${isDev ? "all" : "both"}.`,
);

// A service listens only once it is ready to serve, so both ports accepting is "ready".
void untilListening([ports.builder, ports.payments]).then(() => {
  if (isStopping) return;
  console.log(`Ready in ${(performance.now() / 1000).toFixed(1)} s.`);
  if (!isDev) void recompressStudio();
});

/**
 * A quick build compressed the studio's files at a low brotli quality; the best quality costs about
 * 1.3 s of CPU, so it runs now, in the background at a low priority, and replaces each copy whole.
 * A start stopped before it finishes does it again next time.
 */
async function recompressStudio() {
  const studioDist = join(root, "apps/studio/dist");
  const { isBestCompressed } = await import("../apps/studio/precompress.ts");
  if (isStopping || isBestCompressed(studioDist)) return;
  const child = spawn(process.execPath, [join(root, "apps/studio/precompress.ts"), studioDist], {
    cwd: root,
    stdio: "inherit",
  });
  if (child.pid) setPriority(child.pid, 10);
  child.on("error", (error) =>
    console.error(`[start] the studio's files could not be recompressed: ${error.message}`),
  );
  process.on("exit", () => child.kill());
}

let isStopping = false;
async function stop(exitCode: number) {
  if (isStopping) return;
  isStopping = true;
  const code = await supervisor.stop();
  process.exit(exitCode || code);
}

void supervisor.failed.then((code) => stop(code));
process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
process.on("SIGHUP", () => void stop(0));
