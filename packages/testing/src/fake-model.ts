import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call a fake model makes, in protocol-neutral form. */
export interface FakeToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** One message of a request, normalised from whichever wire protocol carried it. */
export interface FakeMessage {
  role: "system" | "user" | "assistant" | "tool";
  text: string;
  toolCalls: FakeToolCall[];
  toolResults: { name: string; output: unknown }[];
}

/** What the fake received on one chat request: the conversation so far and the tools offered. */
export interface FakeTurn {
  protocol: "openai" | "anthropic" | "google";
  model: string;
  messages: FakeMessage[];
  tools: string[];
  /** Each offered tool's JSON Schema of its arguments, by tool name, as the request carried it. */
  toolSchemas: Record<string, unknown>;
  isStreaming: boolean;
  apiKey: string | undefined;
}

/** How the fake model answers one request. */
export type FakeReply =
  | { text: string; usage?: { input: number; output: number } }
  | { toolCalls: FakeToolCall[]; usage?: { input: number; output: number } }
  | { error: { status: number; message: string; headers?: Record<string, string> } }
  | { hang: true };

/** Decides the reply from the turn; tests swap it to script a conversation. */
export type FakeScript = (turn: FakeTurn) => FakeReply;

export interface FakeProviderOptions {
  /** When set, any other key is refused with 401 in the protocol's own error shape. */
  apiKey?: string;
  /** Model ids served by the live model listing. */
  models?: string[];
  script?: FakeScript;
}

/** A running fake provider on 127.0.0.1. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The base URL to hand the provider's SDK (`…/v1` or `…/v1beta`). */
  baseUrl: string;
  /** Every chat request received, oldest first. */
  turns: FakeTurn[];
  script: FakeScript;
  /** Requests whose client went away before the answer was complete. */
  abortedCount(): number;
  /** Resolves once a client has gone away mid-answer (for tests of cancellation). */
  whenAborted(): Promise<void>;
  close(): Promise<void>;
}

/** The default script: a short plain answer. */
export const helloScript: FakeScript = () => ({ text: "Hello from the fake model." });

/** The text of the latest user message of a turn (the question being answered). */
export function lastUserText(turn: FakeTurn): string {
  return turn.messages.findLast((message) => message.role === "user")?.text ?? "";
}

/** Whether the latest message is a tool result, i.e. the model is on the step after a tool call. */
export function isAfterToolResult(turn: FakeTurn): boolean {
  return turn.messages.at(-1)?.role === "tool";
}

/** Deterministic token counts: a quarter of the prompt characters, one per streamed word. */
export function countUsage(turn: FakeTurn, reply: FakeReply): { input: number; output: number } {
  if ("usage" in reply && reply.usage) return reply.usage;
  const promptChars = turn.messages.reduce(
    (sum, message) => sum + message.text.length + JSON.stringify(message.toolResults).length,
    0,
  );
  const output = "text" in reply ? textChunks(reply.text).length : 5;
  return { input: Math.max(1, Math.ceil(promptChars / 4)), output };
}

/** Splits a text into word-sized deltas, as real providers stream it. */
export function textChunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: unknown;
}

type Handler = (request: FakeRequest, response: ServerResponse) => void | Promise<void>;

/**
 * An HTTP server on 127.0.0.1:0 with the bookkeeping every fake provider shares: parsed JSON
 * bodies, the list of turns, and noticing clients that leave before their answer ends.
 *
 * @example const base = await startFakeHttp((request, response) => sendJson(response, 200, {}));
 */
export async function startFakeHttp(
  handler: Handler,
): Promise<{ url: string; abortedCount(): number; whenAborted(): Promise<void>; close(): Promise<void> }> {
  let aborted = 0;
  let waiters: (() => void)[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    res.on("close", () => {
      hanging.delete(res);
      if (res.writableEnded) return;
      aborted += 1;
      for (const resolve of waiters) resolve();
      waiters = [];
    });
    hanging.add(res);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        sendJson(res, 400, { error: { message: "malformed JSON" } });
        return;
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      Promise.resolve(
        handler(
          {
            method: req.method ?? "GET",
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body,
          },
          res,
        ),
      ).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    abortedCount: () => aborted,
    whenAborted: () =>
      aborted > 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** Starts a `text/event-stream` answer; `write` sends one `data:` (and optional `event:`) frame. */
export function startEventStream(response: ServerResponse): (data: unknown, event?: string) => void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  return (data, event) => {
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    response.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
  };
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
