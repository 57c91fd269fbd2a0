import { fileURLToPath } from "node:url";
import { manualClock, unixSeconds } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findDelivery, pruneDeliveryRecords, replayDelivery } from "./deliveries.ts";
import { createEndpoint, rotateEndpointSecret, updateEndpoint } from "./endpoints.ts";
import { createDeliveryEngine, IN_FLIGHT_ERROR } from "./engine.ts";
import { findEventBody, recordEvent } from "./events.ts";
import * as schema from "./schema.ts";
import type { SendRequest } from "./sender.ts";
import { verify } from "./signature.ts";
import { startTestReceiver, type TestReceiver } from "./testing.ts";

const migrationsFolder = fileURLToPath(new URL("../test/drizzle", import.meta.url));
const start = new Date("2026-03-01T00:00:00Z");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const userAgent = "PaymentService/1.2.3";

let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;
let receiver: TestReceiver;
let clock: ReturnType<typeof manualClock>;
let secrets: string[] = [];
let owner = 0;

beforeAll(async () => {
  database = await createTestDatabase({ schema, migrationsFolder });
  receiver = await startTestReceiver({ secrets: () => secrets, now: () => clock.now() });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
});
beforeEach(() => {
  clock = manualClock(start);
  receiver.received.length = 0;
  receiver.respondWith(() => 200);
  owner += 1;
});

function engineFor(
  options: {
    timeoutMs?: number;
    send?: (request: SendRequest) => Promise<{ status: number; body: string }>;
  } = {},
) {
  return createDeliveryEngine({ db: database.db, clock, userAgent, allowPrivate: true, ...options });
}

async function setUp(enabledEvents = ["*"], url = receiver.url) {
  const ownerId = `mch_${owner}`;
  const { row, secret } = await createEndpoint(
    { db: database.db, clock },
    { ownerId, environment: "test", url, enabledEvents },
  );
  secrets = [secret];
  return { ownerId, endpoint: row, secret };
}

function emit(ownerId: string, type = "payment.succeeded") {
  return database.db.transaction((tx) =>
    recordEvent(tx, clock, { ownerId, environment: "test", type, object: { id: "pay_1", amount: 1500.5 } }),
  );
}

async function deliveryOf(eventId: string) {
  const [row] = await database.db
    .select()
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.eventId, eventId));
  if (!row) throw new Error("no delivery");
  return row;
}

describe("retry schedule (injected clock)", () => {
  it("a receiver that always answers 500 sees attempts at +0, +1m, +6m, +36m, +2h36m, +8h36m, +32h36m, then the delivery is failed", async () => {
    const { ownerId } = await setUp();
    receiver.respondWith(() => 500);
    const event = await emit(ownerId);
    const engine = engineFor();
    const expectedOffsets = [0, 1, 6, 36, 156, 516, 1956].map((minutes) => minutes * MINUTE);

    for (const [index, offset] of expectedOffsets.entries()) {
      // One millisecond early nothing is due; at the scheduled time exactly one attempt goes out.
      if (index > 0) {
        clock.set(new Date(start.getTime() + offset - 1));
        expect(await engine.runDue()).toBe(0);
      }
      clock.set(new Date(start.getTime() + offset));
      expect(await engine.runDue()).toBe(1);
      expect(receiver.received).toHaveLength(index + 1);
    }
    const seenAt = receiver.received.map((delivery) =>
      Number(/t=(\d+)/.exec(String(delivery.headers["x-service-signature"]))?.[1]),
    );
    expect(seenAt).toEqual(expectedOffsets.map((offset) => unixSeconds(new Date(start.getTime() + offset))));

    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("failed");
    expect(delivery.attemptCount).toBe(7);
    expect(delivery.nextAttemptAt).toBeNull();
    clock.advance(72 * HOUR);
    expect(await engine.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(7);

    const found = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(found?.attempts.map((attempt) => attempt.responseStatus)).toEqual([
      500, 500, 500, 500, 500, 500, 500,
    ]);
  });

  it("a receiver that answers 200 on the third attempt ends delivered with three attempt records", async () => {
    const { ownerId, secret } = await setUp();
    let seen = 0;
    receiver.respondWith(() => {
      seen += 1;
      return seen < 3 ? 503 : 200;
    });
    const event = await emit(ownerId);
    const engine = engineFor();
    await engine.runDue();
    clock.advance(MINUTE);
    await engine.runDue();
    clock.advance(5 * MINUTE);
    await engine.runDue();
    clock.advance(24 * HOUR);
    expect(await engine.runDue()).toBe(0);

    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("delivered");
    const found = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(found?.attempts).toHaveLength(3);
    expect(found?.attempts.map((attempt) => attempt.isSuccess)).toEqual([false, false, true]);

    // Every attempt: the same body bytes as the stored event, a fresh numeric attempt id, the exact headers.
    const stored = await findEventBody(database.db, { ownerId, environment: "test", id: event.id });
    const ids = receiver.received.map((delivery) => delivery.headers["x-service-delivery"]);
    expect(new Set(ids).size).toBe(3);
    for (const [index, received] of receiver.received.entries()) {
      expect(received.rawBody).toBe(stored);
      expect(received.event.id).toBe(event.id);
      expect(received.headers["x-service-delivery"]).toMatch(/^\d+$/);
      expect(Number(received.headers["x-service-delivery"])).toBe(found?.attempts[index]?.id);
      expect(received.headers["x-service-event"]).toBe("payment.succeeded");
      expect(received.headers["user-agent"]).toBe(userAgent);
      expect(received.headers["content-type"]).toBe("application/json");
      expect(received.verification?.isValid).toBe(true);
      const header = String(received.headers["x-service-signature"]);
      const t = Number(/t=(\d+)/.exec(header)?.[1]);
      expect(verify({ rawBody: received.rawBody, header, secret, now: t }).isValid).toBe(true);
    }
    expect(
      Object.keys(receiver.received[0]?.headers ?? {})
        .filter((name) => name.startsWith("x-service-"))
        .sort(),
    ).toEqual(["x-service-delivery", "x-service-event", "x-service-signature"]);
  });

  it("a receiver that hangs 11 s is a timeout failure (the real 10 s limit)", {
    timeout: 30_000,
  }, async () => {
    const { ownerId } = await setUp();
    receiver.respondWith(() => ({ hangMs: 11_000, status: 200 }));
    const event = await emit(ownerId);
    await engineFor().runDue();
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("retrying");
    expect(delivery.lastResponseStatus).toBeNull();
    expect(delivery.lastError).toMatch(/DeliveryTimeoutError/);
    // The seed's limit, not some shorter one, is what cut the attempt off.
    expect(delivery.lastError).toContain("no answer within 10000 ms");
    expect(delivery.nextAttemptAt?.getTime()).toBe(start.getTime() + MINUTE);
  });
});

describe("delivery engine", () => {
  it("delivers only the types an endpoint subscribed to", async () => {
    const { ownerId } = await setUp(["payment.failed", "refund.succeeded"]);
    await emit(ownerId, "payment.succeeded");
    const failed = await emit(ownerId, "payment.failed");
    await engineFor().runDue();
    expect(receiver.received.map((delivery) => delivery.event.id)).toEqual([failed.id]);
  });

  it("parks deliveries to a disabled endpoint without sending them", async () => {
    const { ownerId, endpoint } = await setUp();
    const event = await emit(ownerId);
    await updateEndpoint(
      { db: database.db, clock },
      { ownerId, environment: "test", id: endpoint.id },
      { isDisabled: true },
    );
    await engineFor().runDue();
    expect(receiver.received).toHaveLength(0);
    expect((await deliveryOf(event.id)).status).toBe("failed");
    // A disabled endpoint gets no new deliveries either.
    await emit(ownerId);
    expect(await engineFor().runDue()).toBe(0);
  });

  it("signs with both secrets for 24 h after a rotation, then only with the new one", async () => {
    const { ownerId, endpoint, secret: oldSecret } = await setUp();
    const rotated = await rotateEndpointSecret(
      { db: database.db, clock },
      { ownerId, environment: "test", id: endpoint.id },
    );
    if (!rotated) throw new Error("not rotated");
    secrets = [rotated.secret];
    await emit(ownerId);
    await engineFor().runDue();
    const header = String(receiver.received[0]?.headers["x-service-signature"]);
    expect(header.match(/v1=/g)).toHaveLength(2);
    const rawBody = receiver.received[0]?.rawBody ?? "";
    expect(verify({ rawBody, header, secret: oldSecret, now: clock.now() }).isValid).toBe(true);
    expect(verify({ rawBody, header, secret: rotated.secret, now: clock.now() }).isValid).toBe(true);

    clock.advance(24 * HOUR + 1000);
    await emit(ownerId);
    await engineFor().runDue();
    const later = String(receiver.received[1]?.headers["x-service-signature"]);
    expect(later.match(/v1=/g)).toHaveLength(1);
    expect(
      verify({
        rawBody: receiver.received[1]?.rawBody ?? "",
        header: later,
        secret: oldSecret,
        now: clock.now(),
      }).isValid,
    ).toBe(false);
  });

  it("takes a delivery back when a worker's lease runs out, and ignores that worker's late outcome", async () => {
    const { ownerId } = await setUp();
    const event = await emit(ownerId);
    let releaseStuck: (value: { status: number; body: string }) => void = () => {};
    const stuck = engineFor({
      send: () =>
        new Promise((resolve) => {
          releaseStuck = resolve;
        }),
    });
    const stuckRun = stuck.runDue();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await engineFor().runDue()).toBe(0); // still leased
    clock.advance(31_000);
    expect(await engineFor().runDue()).toBe(1);
    expect((await deliveryOf(event.id)).status).toBe("delivered");
    releaseStuck({ status: 500, body: "late" });
    await stuckRun;
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("delivered");
    const found = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(found?.attempts).toHaveLength(2); // the late attempt happened, so it is on record
  });

  it("keeps a POST whose worker died before the answer in the attempt log, marked in flight", async () => {
    const { ownerId } = await setUp();
    const event = await emit(ownerId);
    let isSent = false;
    let answer: (value: { status: number; body: string }) => void = () => {};
    // The worker that dies: its POST went out and nothing after it ever runs (the promise never settles
    // until the test lets it, once the log has been read).
    const dying = engineFor({
      send: () =>
        new Promise((resolve) => {
          isSent = true;
          answer = resolve;
        }),
    });
    const dyingRun = dying.runDue();
    await expect.poll(() => isSent).toBe(true);
    const delivery = await deliveryOf(event.id);
    const inFlight = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(inFlight?.attempts).toHaveLength(1);
    const [attempt] = inFlight?.attempts ?? [];
    expect(attempt).toMatchObject({ error: IN_FLIGHT_ERROR, isSuccess: false, responseStatus: null });
    expect(attempt?.requestHeaders["x-service-delivery"]).toBe(String(attempt?.id));
    // The lease runs out; another worker delivers under a new attempt id; the log holds both POSTs.
    clock.advance(31_000);
    expect(await engineFor().runDue()).toBe(1);
    const after = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(after?.attempts.map((row) => row.error)).toEqual([IN_FLIGHT_ERROR, null]);
    answer({ status: 200, body: "" });
    await dyingRun;
  });

  it("records an attempt's outcome over its in-flight record", async () => {
    const { ownerId } = await setUp();
    const event = await emit(ownerId);
    await engineFor().runDue();
    const delivery = await deliveryOf(event.id);
    const found = await findDelivery(database.db, { ownerId, environment: "test", id: delivery.id });
    expect(found?.attempts).toHaveLength(1);
    expect(found?.attempts[0]).toMatchObject({ error: null, isSuccess: true, responseStatus: 200 });
  });

  it("refuses private targets at delivery time unless allowed", async () => {
    const { ownerId } = await setUp();
    const event = await emit(ownerId);
    await createDeliveryEngine({ db: database.db, clock, userAgent }).runDue();
    expect(receiver.received).toHaveLength(0);
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("retrying");
    expect(delivery.lastError).toMatch(/private address/);
  });

  it("replays a parked delivery as a new series with the same event id and body", async () => {
    const { ownerId } = await setUp();
    receiver.respondWith(() => 500);
    const event = await emit(ownerId);
    const engine = engineFor();
    for (const minutes of [0, 1, 5, 30, 120, 360, 1440]) {
      clock.advance(minutes * MINUTE);
      await engine.runDue();
    }
    const parked = await deliveryOf(event.id);
    expect(parked.status).toBe("failed");
    receiver.respondWith(() => 200);
    const scope = { ownerId, environment: "test", id: parked.id };
    // Scoped to another endpoint, the delivery is nobody's: not found, not replayed.
    expect(await findDelivery(database.db, { ...scope, endpointId: "we_other" })).toBeUndefined();
    expect(await replayDelivery({ db: database.db, clock }, { ...scope, endpointId: "we_other" })).toEqual({
      kind: "not_found",
    });
    expect((await findDelivery(database.db, { ...scope, endpointId: parked.endpointId }))?.delivery.id).toBe(
      parked.id,
    );
    const result = await replayDelivery(
      { db: database.db, clock },
      { ownerId, environment: "test", id: parked.id },
    );
    expect(result.kind).toBe("replayed");
    expect(
      await replayDelivery({ db: database.db, clock }, { ownerId, environment: "test", id: parked.id }),
    ).toEqual({ kind: "scheduled" });
    await engine.runDue();
    const replayed = await deliveryOf(event.id);
    expect(replayed.status).toBe("delivered");
    expect(replayed.replayCount).toBe(1);
    expect(receiver.received.at(-1)?.rawBody).toBe(receiver.received[0]?.rawBody);
  });
});

describe("retention", () => {
  it("prunes attempts and finished deliveries older than 90 days, never events", async () => {
    const { ownerId } = await setUp();
    const old = await emit(ownerId);
    await engineFor().runDue();
    clock.advance(60 * 24 * HOUR);
    const recent = await emit(ownerId);
    await engineFor().runDue();
    clock.advance(31 * 24 * HOUR); // old: 91 days, recent: 31 days

    const pruned = await pruneDeliveryRecords({ db: database.db, clock });
    expect(pruned.attempts).toBeGreaterThanOrEqual(1);
    expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
    const oldDeliveries = await database.db
      .select()
      .from(schema.webhookDeliveries)
      .where(eq(schema.webhookDeliveries.eventId, old.id));
    expect(oldDeliveries).toHaveLength(0);
    const oldAttempts = await database.db
      .select()
      .from(schema.webhookAttempts)
      .where(eq(schema.webhookAttempts.eventId, old.id));
    expect(oldAttempts).toHaveLength(0);
    expect((await deliveryOf(recent.id)).status).toBe("delivered");
    const recentAttempts = await database.db
      .select()
      .from(schema.webhookAttempts)
      .where(eq(schema.webhookAttempts.eventId, recent.id));
    expect(recentAttempts).toHaveLength(1);
    expect(await findEventBody(database.db, { ownerId, environment: "test", id: old.id })).toBeDefined();
  });
});
