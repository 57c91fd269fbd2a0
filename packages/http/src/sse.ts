import type { SSEStreamingApi } from "hono/streaming";

/** Queued text above which `send` waits for the socket, so a slow client holds the producer back. */
const HIGH_WATER_CHARS = 64 * 1024;

export interface EventWriter {
  /** Queues one event; resolves at once unless much is queued, and then once that is written. */
  send(event: string, data: unknown): Promise<void>;
  /** Resolves once everything queued has been written. */
  flush(): Promise<void>;
}

/**
 * Server-Sent Events written in batches: an event goes out at once when nothing is being written, and
 * the events queued while a write is under way go out together in the next one. A provider's burst
 * of text deltas, or a fast workflow's node events, would otherwise cost a system call each (and, on
 * loopback, the reader's wake-up); no event waits for more than the write before it. Events queued
 * without an `await` between them (`send(a); send(b)`) share the first write.
 *
 * @example
 * return streamSSE(c, async (stream) => {
 *   const events = batchedEvents(stream);
 *   for await (const part of parts) await events.send(part.type, part);
 *   await events.flush();
 * });
 */
export function batchedEvents(stream: SSEStreamingApi): EventWriter {
  let queued = "";
  let writing: Promise<void> | undefined;
  const writeQueued = async () => {
    while (queued) {
      const chunk = queued;
      queued = "";
      await stream.write(chunk);
    }
    writing = undefined;
  };
  return {
    send(event, data) {
      if (/[\r\n]/.test(event)) throw new Error("an event name must not contain a line break");
      // JSON has no raw line breaks, so the data is one `data:` line.
      queued += `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      // Started on the next microtask, so events queued in this synchronous stretch join the first write.
      writing ??= Promise.resolve().then(writeQueued);
      return queued.length > HIGH_WATER_CHARS ? writing : Promise.resolve();
    },
    flush: () => writing ?? Promise.resolve(),
  };
}
