// `npm start`: both services on this machine with their embedded databases, from the compiled
// bundles (rebuilt first only when their sources changed). `npm run dev` runs the TypeScript sources
// through the tsx loader instead, next to the studio's Vite dev server.
// Each service runs in its own process (each PGlite is one in-process connection) under a supervisor:
// one that exits unexpectedly is started again with backoff while the other keeps serving; Ctrl-C
// stops both. The builder is a merchant of the payment service: both get the same secret key
// (PAYMENTS_SECRET_KEY, or one generated once into DATA_DIR), the payment service makes sure that
// merchant exists, and the builder registers its webhook endpoint there itself.
// Run by Node's own type stripping (no loader, so a warm start loads no compiler).
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { newSecretToken, readOrCreateSecretFile } from "@app/core";
import { buildIfStale, compiledEntry, root, SERVICE_ENTRIES, type ServiceName } from "./build.ts";
import { type ServiceProcess, Supervisor } from "./supervisor.ts";

const { values: options } = parseArgs({ options: { dev: { type: "boolean", default: false } } });
const isDev = options.dev;

const dataDir = resolve(process.env.DATA_DIR || "./data");
const paymentsSecretKey =
  process.env.PAYMENTS_SECRET_KEY ||
  readOrCreateSecretFile(join(dataDir, "payments_secret_key"), () => newSecretToken("sk_test"));
const shared = { ...process.env, DATA_DIR: dataDir, PAYMENTS_SECRET_KEY: paymentsSecretKey };

if (!isDev) {
  try {
    await buildIfStale();
  } catch (error) {
    console.error(`The build failed: ${(error as Error).message}`);
    process.exit(1);
  }
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

console.log(
  `Starting: builder${isDev ? "" : " and studio"} on http://localhost:${process.env.PORT ?? 3000}, ` +
    `payment service on http://localhost:${process.env.PAYMENTS_PORT ?? 4000}` +
    `${isDev ? ", studio dev server on http://localhost:5173" : ""}. Ctrl-C stops ${isDev ? "all" : "both"}.`,
);

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
