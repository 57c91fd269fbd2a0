// Run by Node's own type stripping (no loader), so keep this file to erasable TypeScript.
import { connect } from "node:net";

function accepts(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Resolves once every port accepts a TCP connection on `host`, checking every `intervalMs`. A plain
 * connect, not an HTTP request: the supervisor stays free of an HTTP client.
 *
 * @example await untilListening([3000, 4000]); console.log("ready");
 */
export async function untilListening(
  ports: readonly number[],
  host = "127.0.0.1",
  intervalMs = 100,
): Promise<void> {
  const waiting = new Set(ports);
  while (waiting.size > 0) {
    for (const port of [...waiting]) if (await accepts(port, host)) waiting.delete(port);
    if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
