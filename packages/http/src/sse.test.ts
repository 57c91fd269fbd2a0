import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { type BaseEnv, requestId } from "./app.ts";
import { listen, type RunningServer } from "./serve.ts";
import { batchedEvents, eventStream } from "./sse.ts";

/** A write function whose writes finish only when the test says so, recording each write's text. */
function recordingStream() {
  const writes: string[] = [];
  const finishers: (() => void)[] = [];
  const stream = (chunk: string) => {
    writes.push(chunk);
    return new Promise<void>((resolve) => finishers.push(resolve));
  };
  return { stream, writes, finishWrite: () => finishers.shift()?.() };
}

/** Lets the event loop turn (twice: the writer waits for one turn after each write). */
const nextTurns = async () => {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
};

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
    await nextTurns();
    expect(writes).toHaveLength(1);
    finishWrite();
    await nextTurns();
    expect(writes[1]).toBe(event("text_delta", { text: "lo" }) + event("finish", { reason: "stop" }));

    let isFlushed = false;
    const flushed = sse.flush().then(() => {
      isFlushed = true;
    });
    await nextTurns();
    expect(isFlushed).toBe(false);
    finishWrite();
    await flushed;
    expect(isFlushed).toBe(true);
  });

  it("writes the first event at once, and gathers later ones until the loop turns", async () => {
    const { stream, writes, finishWrite } = recordingStream();
    const sse = batchedEvents(stream);
    await sse.send("node_started", { node_id: "a" });
    await Promise.resolve();
    expect(writes).toEqual([event("node_started", { node_id: "a" })]);
    finishWrite();
    await sse.flush();
    await sse.send("node_finished", { node_id: "a" });
    await sse.send("node_started", { node_id: "b" });
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    await nextTurns();
    expect(writes[1]).toBe(
      event("node_finished", { node_id: "a" }) + event("node_started", { node_id: "b" }),
    );
  });

  it("on close, hands back what is still queued instead of writing it", async () => {
    const { stream, writes, finishWrite } = recordingStream();
    const sse = batchedEvents(stream);
    void sse.send("text_delta", { text: "Hi" });
    await Promise.resolve();
    void sse.send("finish", { reason: "stop" });
    const rest = sse.close();
    finishWrite();
    expect(await rest).toBe(event("finish", { reason: "stop" }));
    await nextTurns();
    expect(writes).toEqual([event("text_delta", { text: "Hi" })]);
    expect(() => sse.send("late", {})).toThrow(/closed/);
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
    await nextTurns();
    expect(isSent).toBe(false);
    finishWrite();
    await nextTurns();
    finishWrite();
    await big;
    expect(isSent).toBe(true);
  });

  it("refuses an event name that would break the stream's framing", () => {
    const { stream } = recordingStream();
    expect(() => batchedEvents(stream).send("a\nb", {})).toThrow(/line break/);
  });
});

describe("eventStream", () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  async function serveEvents(
    produce: Parameters<typeof eventStream>[1],
    onError: (error: unknown) => void = () => {},
  ) {
    const app = new Hono<BaseEnv>();
    app.use(requestId());
    app.get("/events", (c) => eventStream(c, produce, onError));
    const server = await listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
    servers.push(server);
    return `${server.url}/events`;
  }

  it("answers the events with the event-stream headers and the headers middleware set", async () => {
    const url = await serveEvents(async (events) => {
      void events.send("conversation", { id: "conv_1" });
      await events.send("text_delta", { text: "Hi" });
      await events.send("finish", { reason: "stop" });
    });
    const response = await fetch(url, { headers: { "request-id": "req_fromclient1" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("request-id")).toBe("req_fromclient1");
    expect(await response.text()).toBe(
      event("conversation", { id: "conv_1" }) +
        event("text_delta", { text: "Hi" }) +
        event("finish", { reason: "stop" }),
    );
  });

  it("aborts the producer's signal when the client goes away, and reports nothing", async () => {
    const errors: unknown[] = [];
    let aborted!: () => void;
    const wasAborted = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const url = await serveEvents(
      async (events, signal) => {
        await events.send("tick", { n: 1 });
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        aborted();
        throw new Error("stopped because the client left");
      },
      (error) => errors.push(error),
    );
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe(event("tick", { n: 1 }));
    controller.abort();
    await wasAborted;
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
  });

  it("ends the stream abruptly and reports an error the producer lets escape", async () => {
    let reported!: (error: unknown) => void;
    const wasReported = new Promise<unknown>((resolve) => {
      reported = resolve;
    });
    const url = await serveEvents(async (events) => {
      await events.send("tick", { n: 1 });
      await events.flush();
      throw new Error("database went away");
    }, reported);
    const response = await fetch(url);
    await expect(response.text()).rejects.toThrow();
    expect(String(await wasReported)).toMatch(/database went away/);
  });

  it("refuses to run outside the Node server", async () => {
    const app = new Hono();
    app.get("/events", (c) =>
      eventStream(
        c,
        async () => {},
        () => {},
      ),
    );
    app.onError((error, c) => c.text(error.message, 500));
    const response = await app.request("/events");
    expect(await response.text()).toMatch(/Node HTTP\/1.1 server/);
  });
});
