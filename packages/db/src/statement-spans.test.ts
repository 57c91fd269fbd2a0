import { startTracing, type Tracing, withSpan } from "@app/observability";
import { type FakeOtlpReceiver, startFakeOtlpReceiver } from "@app/testing";
import { eq } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "./connect.ts";
import { migrationsFolder } from "./test-migrations.ts";
import { createTestDatabase } from "./testing.ts";

const widgets = pgTable("widgets", { id: text("id").primaryKey(), name: text("name").notNull() });
const schema = { widgets };
const folder = () =>
  migrationsFolder([
    {
      tag: "0000_widgets",
      sql: 'CREATE TABLE "widgets" ("id" text PRIMARY KEY NOT NULL, "name" text NOT NULL);',
    },
  ]);

let receiver: FakeOtlpReceiver;
let tracing: Tracing;
beforeAll(async () => {
  receiver = await startFakeOtlpReceiver();
  tracing = await startTracing({ service: "db-test", endpoint: receiver.url });
});
afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

// PGlite always; PostgreSQL (node-postgres, pooled and in a transaction) when TEST_DATABASE_URL is set.
const drivers = [
  { name: "PGlite", open: () => openDatabase({ schema, migrationsFolder: folder() }) },
  ...(process.env.TEST_DATABASE_URL
    ? [{ name: "PostgreSQL", open: () => createTestDatabase({ schema, migrationsFolder: folder() }) }]
    : []),
];

describe.each(drivers)("statement spans on $name", ({ name, open }) => {
  it("records each statement of a traced operation as a child span, and none outside one", {
    timeout: 120_000,
  }, async () => {
    const database = await open();
    try {
      const { db } = database;
      // Outside any span: a worker's idle poll.
      await db.select().from(widgets);
      await withSpan("operation", { "test.driver": name }, async () => {
        await db.insert(widgets).values({ id: "w1", name: "first" });
        await db.transaction(async (tx) => {
          await tx.update(widgets).set({ name: "renamed" }).where(eq(widgets.id, "w1"));
        });
        expect(await db.select().from(widgets)).toEqual([{ id: "w1", name: "renamed" }]);
        await expect(db.insert(widgets).values({ id: "w1", name: "again" })).rejects.toThrow();
      });
      await tracing.shutdown();
      tracing = await startTracing({ service: "db-test", endpoint: receiver.url });

      const operation = receiver.spans.find(
        (span) => span.name === "operation" && span.attributes["test.driver"] === name,
      );
      expect(operation).toBeDefined();
      const statements = receiver.spans.filter(
        (span) => span.traceId === operation?.traceId && span.kind === 3,
      );
      for (const span of statements) {
        expect(span.attributes["db.system.name"]).toBe("postgresql");
        // Named after the folder holding the migrations (apps/<service>/drizzle): here a temporary one.
        expect(span.attributes["db.namespace"]).toMatch(/^db-test-/);
      }
      const insert = statements.find((span) => span.name === "INSERT widgets");
      expect(insert?.parentSpanId).toBe(operation?.spanId);
      expect(insert?.attributes["db.query.text"]).toMatch(/^insert into "widgets"/);
      // Values travel as parameters: never in the span.
      expect(JSON.stringify(statements)).not.toContain("first");
      const update = statements.find((span) => span.name === "UPDATE widgets");
      expect(update?.attributes["db.operation.name"]).toBe("UPDATE");
      const select = statements.find((span) => span.name === "SELECT widgets");
      expect(select?.attributes["db.response.returned_rows"]).toBe(1);
      const duplicate = statements.filter((span) => span.name === "INSERT widgets").at(-1);
      expect(duplicate?.attributes["db.response.status_code"]).toBe("23505");
      // The untraced select made no trace of its own.
      const selects = receiver.spans.filter((span) => span.name === "SELECT widgets" && !span.parentSpanId);
      expect(selects).toEqual([]);
    } finally {
      await database.close();
    }
  });
});
