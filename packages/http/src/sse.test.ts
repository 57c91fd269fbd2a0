import type { SSEStreamingApi } from "hono/streaming";
import { describe, expect, it } from "vitest";
import { batchedEvents } from "./sse.ts";

/** A stream whose writes finish only when the test says so, recording each write's text. */
function recordingStream() {
  const writes: string[] = [];
  const finishers: (() => void)[] = [];
  const stream = {
    write: (chunk: string) => {
      writes.push(chunk);
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
  };
  const finishWrite = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { stream: stream as unknown as SSEStreamingApi, writes, finishWrite };
}

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

describe("batchedEvents", () => {
  it("sends events queued together in one write, and those queued during a write in the next", async () => {
    const { stream, writes, finishWrite } = recordingStream();
    const sse = batchedEvents(stream);
    void sse.send("conversation", { id: "conv_1" });
    void sse.send("text_delta", { text: "Hel" });
    await Promise.resolve();
    expect(writes).toEqual([event("conversation", { id: "conv_1" }) + event("text_delta", { text: "Hel" })]);

    // The first write is still under way: these wait for it, then go out together, in order.
    await sse.send("text_delta", { text: "lo" });
    await sse.send("finish", { reason: "stop" });
    expect(writes).toHaveLength(1);
    await finishWrite();
    expect(writes[1]).toBe(event("text_delta", { text: "lo" }) + event("finish", { reason: "stop" }));

    let isFlushed = false;
    const flushed = sse.flush().then(() => {
      isFlushed = true;
    });
    await Promise.resolve();
    expect(isFlushed).toBe(false);
    await finishWrite();
    await flushed;
    expect(isFlushed).toBe(true);
  });

  it("writes the first event of an idle stream at once", async () => {
    const { stream, writes, finishWrite } = recordingStream();
    const sse = batchedEvents(stream);
    await sse.send("node_started", { node_id: "a" });
    await Promise.resolve();
    expect(writes).toEqual([event("node_started", { node_id: "a" })]);
    await finishWrite();
    await sse.flush();
    await sse.send("node_finished", { node_id: "a" });
    await Promise.resolve();
    expect(writes[1]).toBe(event("node_finished", { node_id: "a" }));
  });

  it("makes the sender wait for the socket once much is queued", async () => {
    const { stream, finishWrite } = recordingStream();
    const sse = batchedEvents(stream);
    void sse.send("first", {});
    await Promise.resolve();
    let isSent = false;
    const big = sse.send("big", { text: "x".repeat(70_000) }).then(() => {
      isSent = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(isSent).toBe(false);
    await finishWrite();
    await finishWrite();
    await big;
    expect(isSent).toBe(true);
  });

  it("refuses an event name that would break the stream's framing", () => {
    const { stream } = recordingStream();
    expect(() => batchedEvents(stream).send("a\nb", {})).toThrow(/line break/);
  });
});
