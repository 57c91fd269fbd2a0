import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";

export interface RunningServer {
  port: number;
  url: string;
  close(): Promise<void>;
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
          close: () =>
            new Promise<void>((done) => {
              if (!server) return done();
              server.close(() => done());
              if ("closeAllConnections" in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.on("error", onError);
  });
}

/**
 * Runs a service until SIGINT or SIGTERM, then stops it once and exits; a bad configuration
 * exits with code 78 (EX_CONFIG) and its message instead of a stack trace.
 *
 * @example await runService("builder", () => startBuilder(loadConfig(process.env)));
 */
export async function runService(
  name: string,
  start: () => Promise<{ stop(): Promise<void> }>,
): Promise<void> {
  let service: { stop(): Promise<void> };
  try {
    service = await start();
  } catch (error) {
    if (error instanceof Error && error.name === "ConfigError") {
      console.error(`${name}: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  let isStopping = false;
  const stop = async () => {
    if (isStopping) return;
    isStopping = true;
    await service.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}
