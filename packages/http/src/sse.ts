import { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";

/** Queued text above which `send` waits for the socket, so a slow client holds the producer back. */
const HIGH_WATER_CHARS = 64 * 1024;

const EVENT_STREAM_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
};

export interface EventWriter {
  /** Queues one event; resolves at once unless much is queued, and then once that is written. */
  send(event: string, data: unknown): Promise<void>;
  /** Resolves once everything queued has been written. */
  flush(): Promise<void>;
}

/**
 * Answers with Server-Sent Events that `produce` sends, written straight to Node's response: the
 * headers go out with the first events in one packet, and no web stream sits between the events
 * and the socket (Hono's `streamSSE` pipes each write through a TransformStream that the Node
 * adapter then reads back, several promises per event). `signal` aborts when the client goes away.
 * An error `produce` lets escape ends the stream abruptly and goes to `onError`; events a client
 * should see, errors included, are the producer's to send.
 *
 * @example
 * return eventStream(c, async (events, signal) => {
 *   for await (const part of parts(signal)) await events.send(part.type, part);
 * }, (error) => logger.error({ err: error }, "stream failed"));
 */
export function eventStream(
  c: Context,
  produce: (events: EventWriter, signal: AbortSignal) => Promise<void>,
  onError: (error: unknown) => void,
): Response {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (!(outgoing instanceof ServerResponse)) {
    throw new Error("eventStream needs the Node HTTP/1.1 server of @hono/node-server");
  }
  // The headers middleware set so far (Request-Id and the like) go out with ours.
  const headers = c.newResponse(null, 200, EVENT_STREAM_HEADERS).headers;
  const record: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    record[name] = name === "set-cookie" ? headers.getSetCookie() : value;
  });
  outgoing.writeHead(200, record);
  const signal = c.req.raw.signal;
  const events = batchedEvents((chunk) => writeChunk(outgoing, chunk));
  void (async () => {
    try {
      await produce(events, signal);
      // The last events and the end of the chunked body leave in one write.
      const rest = await events.close();
      if (!outgoing.destroyed) outgoing.end(rest);
    } catch (error) {
      outgoing.destroy();
      if (!signal.aborted) onError(error);
    }
  })();
  // Tells the Node adapter the answer is already under way.
  return RESPONSE_ALREADY_SENT;
}

/** Resolves once `chunk` is handed to the socket, or at once when the client has gone. */
function writeChunk(outgoing: ServerResponse, chunk: string): Promise<void> {
  if (outgoing.destroyed || outgoing.writableEnded) return Promise.resolve();
  return new Promise((resolve) => outgoing.write(chunk, () => resolve()));
}

/** An `EventWriter` that can hand back what it has not written yet, to be sent with the end. */
export interface ClosableEventWriter extends EventWriter {
  /** Waits for the write under way, then answers what is still queued; nothing is written after. */
  close(): Promise<string>;
}

/**
 * Server-Sent Events written in batches: the first events go out on the next microtask, and later
 * ones once the write under way has finished and the current burst of work is done (the next
 * turn of the event loop), all together. A provider's burst of text deltas, or a fast workflow's
 * node events, would otherwise cost a system call each (and, on loopback, the reader's wake-up);
 * no event waits for more than the write before it and the work of its own burst.
 *
 * @example const events = batchedEvents((chunk) => socketWrite(chunk)); await events.send("ping", {});
 */
export function batchedEvents(write: (chunk: string) => Promise<void>): ClosableEventWriter {
  let queued = "";
  let isClosed = false;
  let hasWritten = false;
  let writing: Promise<void> | undefined;
  const writeQueued = async () => {
    while (queued && !isClosed) {
      const chunk = queued;
      queued = "";
      hasWritten = true;
      await write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    writing = undefined;
  };
  return {
    send(event, data) {
      if (isClosed) throw new Error("the event stream is closed");
      if (/[\r\n]/.test(event)) throw new Error("an event name must not contain a line break");
      // JSON has no raw line breaks, so the data is one `data:` line.
      queued += `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      // The first write waits only for this synchronous stretch; the next for the loop's turn.
      writing ??= hasWritten
        ? new Promise((resolve) => setImmediate(resolve)).then(writeQueued)
        : Promise.resolve().then(writeQueued);
      return queued.length > HIGH_WATER_CHARS ? writing : Promise.resolve();
    },
    flush: async () => {
      while (writing) await writing;
    },
    close: async () => {
      isClosed = true;
      while (writing) await writing;
      const rest = queued;
      queued = "";
      return rest;
    },
  };
}
