import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EventEnvelope } from "./events.ts";
import { type VerifyResult, verify } from "./signature.ts";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  rawBody: string;
  event: EventEnvelope;
  /** `Date.now()` when the body was complete. */
  receivedAt: number;
  /** The verification result, when the receiver knows the secrets. */
  verification: VerifyResult | undefined;
}

/** What to answer: a status, or "hang" to never answer (until the receiver closes). */
export type ReceiverAnswer = number | "hang" | { hangMs: number; status: number };

export interface TestReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Changes how later deliveries are answered. */
  respondWith(answer: (delivery: ReceivedDelivery, index: number) => ReceiverAnswer): void;
  /** Resolves once `predicate` holds (checked on every delivery), or rejects after `timeoutMs`. */
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1 that records (and, given secrets, verifies) every delivery,
 * for tests and benchmarks of anything that sends webhooks.
 *
 * @example
 * const receiver = await startTestReceiver({ secrets: () => [secret] });
 * receiver.respondWith(() => 500);
 */
export async function startTestReceiver(
  options: {
    secrets?: () => string[];
    now?: () => Date;
    answer?: (delivery: ReceivedDelivery, index: number) => ReceiverAnswer;
    /** Keep only a count instead of every body (benchmarks). */
    onDelivery?: (delivery: ReceivedDelivery) => void;
    isRecording?: boolean;
  } = {},
): Promise<TestReceiver> {
  let answer = options.answer ?? (() => 200);
  const received: ReceivedDelivery[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  let count = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const secrets = options.secrets?.() ?? [];
      let event: EventEnvelope;
      try {
        event = JSON.parse(rawBody) as EventEnvelope;
      } catch {
        res.writeHead(400).end("invalid json");
        return;
      }
      const delivery: ReceivedDelivery = {
        headers: req.headers,
        rawBody,
        event,
        receivedAt: Date.now(),
        verification:
          secrets.length > 0
            ? verify({
                rawBody,
                header: req.headers["x-service-signature"] as string | undefined,
                secrets,
                now: options.now?.() ?? new Date(),
              })
            : undefined,
      };
      const index = count;
      count += 1;
      if (options.isRecording !== false) received.push(delivery);
      options.onDelivery?.(delivery);
      for (const waiter of waiters) waiter();
      const reply = delivery.verification?.isValid === false ? 400 : answer(delivery, index);
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      if (typeof reply === "object") {
        hanging.add(res);
        setTimeout(() => {
          hanging.delete(res);
          if (!res.destroyed) res.writeHead(reply.status).end("late");
        }, reply.hangMs).unref();
        return;
      }
      res.writeHead(reply, { "content-type": "text/plain" }).end(reply < 300 ? "ok" : `status ${reply}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    respondWith(next) {
      answer = next;
    },
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} received)`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      for (const res of hanging) res.destroy();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
