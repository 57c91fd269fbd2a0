import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { seedMessages } from "../../test/log-support.ts";
import { workspaces } from "../workspaces/schema.ts";

const ROWS = 100_000;
const CONTENT_LENGTH = 500;
const MB = 1024 * 1024;

// A full collection before each sample, so the heap measured is what the export keeps, not garbage
// the collector has not reached yet.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let builder: TestBuilder;
let cookie: string;
beforeAll(async () => {
  builder = await startTestBuilder();
  const user = await builder.signUp();
  cookie = user.cookie;
  const agent = await builder.request("/api/agents", {
    method: "POST",
    cookie,
    json: { name: "Seeded", provider: "openai", model: "gpt-4o-mini" },
  });
  const agentId = ((await agent.json()) as { id: string }).id;
  const [workspace] = await builder.deps.db
    .select()
    .from(workspaces)
    .where(eq(workspaces.ownerUserId, user.userId));
  await seedMessages(builder.deps.db, {
    workspaceId: workspace?.id ?? "",
    agentId,
    count: ROWS,
    contentLength: CONTENT_LENGTH,
  });
}, 240_000);
afterAll(() => builder?.stop());

describe("export memory", () => {
  // The builder runs in this process, so its heap is this heap: an export that gathered its result
  // before sending would hold the ~60 MB of CSV (twice that as JS strings) at once.
  it.each(["csv", "jsonl"] as const)(
    "streams %s of 100,000 messages with the heap and RSS flat, whatever the size",
    async (format) => {
      gc();
      const before = process.memoryUsage();
      let peakHeap = before.heapUsed;
      let peakRss = before.rss;
      const response = await builder.request(`/api/conversations/export?format=${format}`, { cookie });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let bytes = 0;
      let records = 0;
      let chunks = 0;
      let previous = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        // A record ends in CRLF (CSV: content's own line breaks are bare LF) or LF (JSON lines).
        for (const byte of value) {
          if (byte === 0x0a && (format === "jsonl" || previous === 0x0d)) records += 1;
          previous = byte;
        }
        chunks += 1;
        if (chunks % 64 === 0) {
          gc();
          const now = process.memoryUsage();
          peakHeap = Math.max(peakHeap, now.heapUsed);
          peakRss = Math.max(peakRss, now.rss);
        }
      }
      expect(records).toBe(ROWS + (format === "csv" ? 1 : 0));
      expect(bytes).toBeGreaterThan(ROWS * CONTENT_LENGTH);
      const heapGrowth = (peakHeap - before.heapUsed) / MB;
      const rssGrowth = (peakRss - before.rss) / MB;
      console.log(
        `${format}: ${(bytes / MB).toFixed(0)} MB exported, heap +${heapGrowth.toFixed(0)} MB, RSS +${rssGrowth.toFixed(0)} MB`,
      );
      // Kept whole, the export would be over 70 MB of bytes (twice that as strings).
      expect(heapGrowth).toBeLessThan(32);
      expect(rssGrowth).toBeLessThan(200);
    },
    240_000,
  );
});
