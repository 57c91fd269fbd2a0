// `npm start`: both services on this machine with their embedded databases, from the compiled bundles
// (rebuilt first only when their sources changed). Run by Node's own type stripping (no loader).
// Each runs in its own process (each PGlite is one in-process connection); Ctrl-C stops both.
// The builder is a merchant of the payment service: both get the same secret key (PAYMENTS_SECRET_KEY,
// or one generated once into DATA_DIR), the payment service makes sure that merchant exists, and the
// builder registers its webhook endpoint there itself.
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { newSecretToken, readOrCreateSecretFile } from "@app/core";
import { buildIfStale, compiledEntry } from "./build.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = resolve(process.env.DATA_DIR || "./data");
const paymentsSecretKey =
  process.env.PAYMENTS_SECRET_KEY ||
  readOrCreateSecretFile(join(dataDir, "payments_secret_key"), () => newSecretToken("sk_test"));
const shared = { ...process.env, DATA_DIR: dataDir, PAYMENTS_SECRET_KEY: paymentsSecretKey };
const services = [
  {
    name: "payments",
    entry: compiledEntry("payments"),
    // The builder's webhook endpoint is on this machine's loopback, which the service refuses by default.
    env: { ...shared, PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: process.env.PAYMENTS_ALLOW_PRIVATE_WEBHOOKS || "1" },
  },
  { name: "builder", entry: compiledEntry("builder"), env: shared },
];

await buildIfStale();

const children = new Map<string, ChildProcess>();
let isStopping = false;

for (const service of services) {
  const child = spawn(process.execPath, ["--enable-source-maps", service.entry], {
    cwd: root,
    env: service.env,
    stdio: "inherit",
  });
  children.set(service.name, child);
  child.on("exit", (code, signal) => {
    children.delete(service.name);
    if (!isStopping) {
      console.error(`${service.name} exited (${signal ?? `code ${code}`}); stopping the others.`);
      stopAll(code ?? 1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
}

console.log(
  `Starting: builder and studio on http://localhost:${process.env.PORT ?? 3000}, ` +
    `payment service on http://localhost:${process.env.PAYMENTS_PORT ?? 4000}. Ctrl-C stops both.`,
);

function stopAll(exitCode: number) {
  if (isStopping) return;
  isStopping = true;
  process.exitCode = exitCode;
  if (children.size === 0) process.exit(exitCode);
  for (const child of children.values()) child.kill("SIGTERM");
  // A service that does not stop in time is killed; its embedded database recovers on the next start.
  setTimeout(() => {
    for (const child of children.values()) child.kill("SIGKILL");
    process.exit(exitCode || 1);
  }, 10_000).unref();
}

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));
