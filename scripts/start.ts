// `npm start`: both services on this machine with their embedded databases.
// Each runs in its own process (each PGlite is one in-process connection); Ctrl-C stops both.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const services = [
  { name: "payments", entry: "apps/payments/src/server.ts" },
  { name: "builder", entry: "apps/builder/src/server.ts" },
];

const children = new Map<string, ChildProcess>();
let isStopping = false;

for (const service of services) {
  const child = spawn(process.execPath, ["--import", "tsx", service.entry], {
    cwd: root,
    env: process.env,
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
