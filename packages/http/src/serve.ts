import cluster from "node:cluster";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";

export interface RunningServer {
  port: number;
  url: string;
  /**
   * Stops accepting connections and resolves once every connection has ended. Requests and
   * streams in flight get up to `graceMs` to finish (idle keep-alive connections close at once);
   * whatever is still open then is cut. Without `graceMs`, everything is cut at once (tests).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Listens with the app's fetch handler; resolves once the port is bound.
 *
 * @example const server = await listen(app.fetch, { port: 3000 });
 */
export function listen(
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
  options: { port: number; hostname?: string },
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined;
    const onError = (error: Error) => reject(error);
    server = serve(
      { fetch, port: options.port, hostname: options.hostname ?? "0.0.0.0" },
      (info: AddressInfo) => {
        server?.off("error", onError);
        const host = options.hostname && options.hostname !== "0.0.0.0" ? options.hostname : "127.0.0.1";
        resolve({
          port: info.port,
          url: `http://${host}:${info.port}`,
          close: ({ graceMs = 0 } = {}) =>
            new Promise<void>((done) => {
              if (!server) return done();
              const http = server;
              const cutAll = () => {
                if ("closeAllConnections" in http) http.closeAllConnections();
              };
              const closeIdle = () => {
                if ("closeIdleConnections" in http) http.closeIdleConnections();
              };
              const timer = graceMs > 0 ? setTimeout(cutAll, graceMs) : undefined;
              // A keep-alive connection whose request finishes during the grace period turns idle
              // and would otherwise stay open until its client lets go (seconds): sweep them.
              const sweep = graceMs > 0 ? setInterval(closeIdle, 50) : undefined;
              http.close(() => {
                clearTimeout(timer);
                clearInterval(sweep);
                done();
              });
              closeIdle();
              if (graceMs <= 0) cutAll();
            }),
        });
      },
    );
    server.on("error", onError);
    // Longer than the idle timeout of the proxies and clients in front (60 s for most load
    // balancers, 4 s for Node's fetch): the client, not the server, ends an idle keep-alive
    // connection, so a request is never sent on a socket the server is closing at that moment.
    const http = server as { keepAliveTimeout?: number; headersTimeout?: number };
    http.keepAliveTimeout = 65_000;
    http.headersTimeout = 66_000;
  });
}

export interface ServiceDefinition<TConfig> {
  /** Names the service in messages: `builder: Invalid configuration: …`. */
  name: string;
  /** Reads and validates the configuration; a `ConfigError` ends the start with its message. */
  configure: () => TConfig;
  /**
   * How many processes serve the port (node:cluster); 1, the default, serves from this process.
   * Only for services whose state is all in a shared database: each process is a full copy.
   */
  processes?: (config: TConfig) => number;
  start: (config: TConfig) => Promise<{ stop(): Promise<void> }>;
}

/** Exit code of a bad configuration (EX_CONFIG), so supervisors do not restart in a loop. */
const EXIT_CONFIG = 78;
/** A worker process that keeps crashing this often within a minute stops the service. */
const MAX_RESTARTS_PER_MINUTE = 5;
/** How long stopping worker processes may take before they are killed. */
const STOP_GRACE_MS = 30_000;

/**
 * Runs a service until SIGINT or SIGTERM, then stops it once and exits; a bad configuration
 * exits with code 78 and its message instead of a stack trace. With more than one process the
 * primary only forks and supervises: workers share the port, a crashed worker is replaced, and a
 * stop signal is passed on to every worker. Started by a parent with an IPC channel (`npm start`'s
 * supervisor), it also stops when that channel closes: the parent is gone, however it died.
 *
 * @example
 * await runService({ name: "builder", configure: () => loadConfig(process.env), processes: (c) => c.processes, start: startBuilder });
 */
export async function runService<TConfig>(service: ServiceDefinition<TConfig>): Promise<void> {
  let config: TConfig;
  try {
    config = service.configure();
  } catch (error) {
    exitOnConfigError(service.name, error);
    throw error;
  }
  const processes = service.processes?.(config) ?? 1;
  if (processes > 1 && cluster.isPrimary) return superviseWorkers(service.name, processes);

  let running: { stop(): Promise<void> };
  try {
    running = await service.start(config);
  } catch (error) {
    exitOnConfigError(service.name, error);
    throw error;
  }
  let isStopping = false;
  const stop = async () => {
    // npm passes a terminal's Ctrl-C on to the process that already got it: one stop only.
    if (isStopping) return;
    isStopping = true;
    try {
      await running.stop();
      process.exit(0);
    } catch (error) {
      console.error(`${service.name}: the stop failed:`, error);
      process.exit(1);
    }
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  onParentGone(() => void stop());
}

/**
 * Runs `stop` when the parent that started this process with an IPC channel is gone. A cluster
 * worker is left to node:cluster, which already exits when its primary's channel closes.
 */
function onParentGone(stop: () => void): void {
  if (process.channel && cluster.isPrimary) process.once("disconnect", stop);
}

function exitOnConfigError(name: string, error: unknown): void {
  if (error instanceof Error && error.name === "ConfigError") {
    console.error(`${name}: ${error.message}`);
    process.exit(EXIT_CONFIG);
  }
}

function superviseWorkers(name: string, processes: number): void {
  let isStopping = false;
  const restarts: number[] = [];
  for (let i = 0; i < processes; i++) cluster.fork();

  const stopAll = (exitCode: number) => {
    if (isStopping) return;
    isStopping = true;
    process.exitCode = exitCode;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker?.process.kill("SIGTERM");
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
  };

  cluster.on("exit", (worker, code, signal) => {
    if (isStopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    // The worker printed the configuration problem; starting another would print it again.
    if (code === EXIT_CONFIG) return stopAll(EXIT_CONFIG);
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && (restarts[0] ?? now) < now - 60_000) restarts.shift();
    if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
      console.error(`${name}: worker processes keep exiting; stopping.`);
      return stopAll(1);
    }
    console.error(
      `${name}: worker process ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another.`,
    );
    cluster.fork();
  });
  process.on("SIGINT", () => stopAll(0));
  process.on("SIGTERM", () => stopAll(0));
  onParentGone(() => stopAll(0));
}
