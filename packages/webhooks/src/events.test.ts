import { fileURLToPath } from "node:url";
import { manualClock } from "@app/core";
import { queryRows } from "@app/db";
import { createTestDatabase } from "@app/db/testing";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EventEnvelope,
  eventIdFor,
  eventListJson,
  findEventBody,
  listEvents,
  recordEvent,
  UnknownCursorError,
} from "./events.ts";
import * as schema from "./schema.ts";

const migrationsFolder = fileURLToPath(new URL("../test/drizzle", import.meta.url));
const clock = manualClock(new Date("2026-03-01T00:00:00Z"));
let database: Awaited<ReturnType<typeof createTestDatabase<typeof schema>>>;

beforeAll(async () => {
  database = await createTestDatabase({ schema, migrationsFolder });
});
afterAll(() => database?.close());

async function emit(ownerId: string, type = "payment.pending", n = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const event = await database.db.transaction((tx) =>
      recordEvent(tx, clock, { ownerId, environment: "test", type, object: { n: i } }),
    );
    ids.push(event.id);
  }
  return ids;
}

const idsOf = (page: { bodies: string[] }) =>
  page.bodies.map((body) => (JSON.parse(body) as EventEnvelope).id);

describe("event ids", () => {
  it("sort like (transaction id, sequence)", () => {
    const ids = [eventIdFor(9n, 100n), eventIdFor(10n, 1n), eventIdFor(10n, 2n), eventIdFor(2n ** 40n, 1n)];
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^evt_[0-9a-z]{26}$/);
  });

  it("made in SQL match the JavaScript encoding, and the stored body starts with the id", async () => {
    const object = { text: 'quotes " and \\ backslashes, ünïcode', n: 1 };
    const recorded = await database.db.transaction((tx) =>
      recordEvent(tx, clock, { ownerId: "own_ids", environment: "test", type: "payment.pending", object }),
    );
    const [row] = await queryRows<{ xid: string; seq: string; body: string }>(
      database.db,
      sql`select xid::text, seq::text, body from events where id = ${recorded.id}`,
    );
    expect(recorded.id).toBe(eventIdFor(BigInt(row?.xid ?? 0), BigInt(row?.seq ?? 0)));
    expect(row?.body).toBe(recorded.body);
    expect(Object.keys(JSON.parse(recorded.body))).toEqual([
      "id",
      "object",
      "type",
      "environment",
      "created",
      "data",
    ]);
    expect((JSON.parse(recorded.body) as EventEnvelope).data.object).toEqual(object);
  });
});

describe("listEvents", () => {
  it("answers newest first without a cursor, with has_more when older ones exist", async () => {
    const ids = await emit("own_list", "payment.pending", 5);
    const page = await listEvents(database.db, { ownerId: "own_list", environment: "test", limit: 3 });
    expect(idsOf(page)).toEqual([ids[4], ids[3], ids[2]]);
    expect(page.hasMore).toBe(true);
    const all = await listEvents(database.db, { ownerId: "own_list", environment: "test", limit: 5 });
    expect(all.hasMore).toBe(false);
  });

  it("starting_after gives the nearest newer events, newest first; ending_before the nearest older", async () => {
    const ids = await emit("own_cursor", "payment.pending", 6);
    const after = await listEvents(database.db, {
      ownerId: "own_cursor",
      environment: "test",
      limit: 2,
      startingAfter: ids[1],
    });
    expect(idsOf(after)).toEqual([ids[3], ids[2]]);
    expect(after.hasMore).toBe(true);
    const tail = await listEvents(database.db, {
      ownerId: "own_cursor",
      environment: "test",
      limit: 10,
      startingAfter: ids[3],
    });
    expect(idsOf(tail)).toEqual([ids[5], ids[4]]);
    expect(tail.hasMore).toBe(false);
    const before = await listEvents(database.db, {
      ownerId: "own_cursor",
      environment: "test",
      limit: 2,
      endingBefore: ids[4],
    });
    expect(idsOf(before)).toEqual([ids[3], ids[2]]);
    expect(before.hasMore).toBe(true);
  });

  it("names the next cursor in the direction of travel, and none at the end", async () => {
    const ids = await emit("own_next", "payment.pending", 5);
    const scope = { ownerId: "own_next", environment: "test", limit: 2 };
    const newest = await listEvents(database.db, scope);
    expect(newest.nextCursor).toBe(ids[3]);
    const older = await listEvents(database.db, { ...scope, endingBefore: newest.nextCursor ?? "" });
    expect(idsOf(older)).toEqual([ids[2], ids[1]]);
    expect(older.nextCursor).toBe(ids[1]);
    const newer = await listEvents(database.db, { ...scope, startingAfter: ids[0] });
    expect(idsOf(newer)).toEqual([ids[2], ids[1]]);
    expect(newer.nextCursor).toBe(ids[2]);
    const last = await listEvents(database.db, { ...scope, startingAfter: newer.nextCursor ?? "" });
    expect(idsOf(last)).toEqual([ids[4], ids[3]]);
    expect(last).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("filters by type, scopes by owner and environment, and refuses unknown cursors", async () => {
    const [pending] = await emit("own_type", "payment.pending");
    const [succeeded] = await emit("own_type", "payment.succeeded");
    const page = await listEvents(database.db, {
      ownerId: "own_type",
      environment: "test",
      limit: 10,
      type: "payment.succeeded",
    });
    expect(idsOf(page)).toEqual([succeeded]);
    expect(
      (await listEvents(database.db, { ownerId: "own_type", environment: "live", limit: 10 })).bodies,
    ).toEqual([]);
    await expect(
      listEvents(database.db, {
        ownerId: "someone_else",
        environment: "test",
        limit: 10,
        startingAfter: pending,
      }),
    ).rejects.toBeInstanceOf(UnknownCursorError);
  });

  it("lists the stored bytes: the list and the single event carry the body exactly", async () => {
    const [id] = await emit("own_bytes");
    const body = await findEventBody(database.db, {
      ownerId: "own_bytes",
      environment: "test",
      id: id ?? "",
    });
    const json = eventListJson(
      await listEvents(database.db, { ownerId: "own_bytes", environment: "test", limit: 1 }),
    );
    expect(json).toBe(`{"object":"list","data":[${body}],"has_more":false}`);
    expect(JSON.parse(json)).toMatchObject({ object: "list", has_more: false });
    const withCursor = eventListJson(
      { bodies: [body ?? ""], hasMore: true, nextCursor: id ?? "" },
      {
        withNextCursor: true,
      },
    );
    expect(withCursor).toBe(`{"object":"list","data":[${body}],"has_more":true,"next_cursor":"${id}"}`);
  });
});

describe("ordering under concurrent writers (PostgreSQL)", () => {
  const serverUrl = process.env.TEST_DATABASE_URL;
  it.skipIf(!serverUrl)(
    "hides an event committed after an older transaction that is still open, so a poller cannot skip the older one",
    async () => {
      // PGlite has one connection: two transactions cannot overlap there, so this case cannot arise (skipped).
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        // Transaction A takes its transaction id first and stays open.
        await client.query("begin");
        await client.query("select pg_current_xact_id()");
        // Transaction B writes and commits an event while A is open.
        const [later] = await emit("own_race");
        const hidden = await listEvents(database.db, { ownerId: "own_race", environment: "test", limit: 10 });
        expect(idsOf(hidden)).toEqual([]);
        // A now writes its event (smaller id than B's although it commits later) and commits.
        const { rows } = await client.query<{ xid: string; seq: string }>(
          "select pg_current_xact_id()::text as xid, nextval('webhook_event_seq')::text as seq",
        );
        const row = rows[0];
        if (!row) throw new Error("no row");
        const earlier = eventIdFor(BigInt(row.xid), BigInt(row.seq));
        await client.query(
          "insert into events (id, owner_id, environment, type, xid, seq, created_at, body) values ($1, 'own_race', 'test', 'payment.pending', $2, $3, now(), $4)",
          [earlier, row.xid, row.seq, JSON.stringify({ id: earlier })],
        );
        await client.query("commit");
        expect(earlier < (later ?? "")).toBe(true);
        // Other databases' short transactions on the same server can hold the horizon back for a moment.
        let visible = await listEvents(database.db, { ownerId: "own_race", environment: "test", limit: 10 });
        for (let tries = 0; visible.bodies.length < 2 && tries < 50; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          visible = await listEvents(database.db, { ownerId: "own_race", environment: "test", limit: 10 });
        }
        expect(idsOf(visible)).toEqual([later, earlier]);
      } finally {
        await client.end();
      }
    },
  );

  it("reads the horizon from the database", async () => {
    const [row] = await queryRows<{ xmin: string }>(
      database.db,
      sql`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`,
    );
    expect(Number(row?.xmin)).toBeGreaterThan(0);
  });
});
