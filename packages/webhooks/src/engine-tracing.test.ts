import { fileURLToPath } from "node:url";
import { manualClock } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEndpoint } from "./endpoints.ts";
import { createDeliveryEngine } from "./engine.ts";
import { recordEvent } from "./events.ts";
import * as schema from "./schema.ts";
import { startTestReceiver, type TestReceiver } from "./testing.ts";

const migrationsFolder = fileURLToPath(new URL("../test/drizzle", import.meta.url));
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;
let receiver: TestReceiver;
const clock = manualClock(new Date("2026-03-01T00:00:00Z"));
let secrets: string[] = [];

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  database = await createTestDatabase({ schema, migrationsFolder });
  receiver = await startTestReceiver({ secrets: () => secrets, now: () => clock.now() });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  await provider.shutdown();
  trace.disable();
});

describe("webhook delivery traces", () => {
  it("records each attempt as a webhook.delivery span with its ids, status and outcome", async () => {
    const { row: endpoint, secret } = await createEndpoint(
      { db: database.db, clock },
      { ownerId: "mch_trace", environment: "test", url: receiver.url, enabledEvents: ["*"] },
    );
    secrets = [secret];
    const event = await database.db.transaction((tx) =>
      recordEvent(tx, clock, {
        ownerId: "mch_trace",
        environment: "test",
        type: "payment.succeeded",
        object: {},
      }),
    );
    receiver.respondWith(() => 500);
    const engine = createDeliveryEngine({ db: database.db, clock, userAgent: "Test/1", allowPrivate: true });
    expect(await engine.runDue()).toBe(1);

    const [span] = exporter.getFinishedSpans().filter((candidate) => candidate.name === "webhook.delivery");
    expect(span?.attributes).toMatchObject({
      "webhook.event.id": event.id,
      "webhook.event.type": "payment.succeeded",
      "webhook.endpoint.id": endpoint.id,
      "webhook.owner.id": "mch_trace",
      "http.response.status_code": 500,
    });
    expect(span?.status.code).toBe(2);
  });
});
