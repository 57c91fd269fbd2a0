// npm run bench -- export [--messages 1000000] [--content 200] [--db pglite|postgres]
// The logs' streamed export: `--messages` messages (conversations of 10, a question and an answer in
// turn, every twentieth answer disliked) seeded with bulk SQL, then GET /api/conversations/export as
// CSV and as JSON lines, read to the end by a client counting bytes. Time and the process's RSS growth
// (peak during the export over the level before it; the builder runs in this process). Baseline: the
// same number of bytes streamed by a bare node:http server to the same client, so the table shows
// what reading the database and writing records adds to moving the bytes.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { queryRows } from "@app/db";
import { createLogger } from "@app/http";
import { freePort } from "@app/testing";
import { sql } from "drizzle-orm";
import { Agent } from "undici";
import { loadConfig } from "../apps/builder/src/config.ts";
import { startBuilder } from "../apps/builder/src/start.ts";
import { seedMessages } from "../apps/builder/test/log-support.ts";
import { benchDatabase, benchUser, option, printTable, temporaryDataDir } from "./lib.ts";

const messageCount = Number(option("messages", "1000000"));
const contentLength = Number(option("content", "200"));
const dbKind = option("db", "pglite");
const MB = 1024 * 1024;

const port = await freePort();
const database = await benchDatabase(dbKind);
const config = loadConfig({
  PORT: String(port),
  DATA_DIR: temporaryDataDir("bench-export"),
  PUBLIC_URL: `http://127.0.0.1:${port}`,
  // The data is seeded after the start, so the page cache sized at start would be the empty
  // database's (16 MB): give it what a restart with this data would choose, as bench/rag.ts does.
  EMBEDDED_DB_CACHE_MB: process.env.EMBEDDED_DB_CACHE_MB ?? "512",
  ...database.env,
});
const builder = await startBuilder(config, {
  hostname: "127.0.0.1",
  logger: createLogger({ service: "bench", level: "warn" }),
});
const url = builder.server.url;

/** Reads `path` to the end; answers the seconds, the bytes and the peak RSS growth while it ran. */
async function download(target: string, cookie: string) {
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const started = performance.now();
  // A connection of its own: one kept alive through the long seed would be closed by the server.
  const response = await fetch(target, {
    headers: { cookie, origin: url },
    dispatcher: new Agent(),
  } as RequestInit);
  if (!response.ok || !response.body) throw new Error(`${target} answered ${response.status}`);
  let bytes = 0;
  // Records end in CRLF in CSV (content's own line breaks are bare LF) and in LF in JSON lines;
  // counted with Buffer.indexOf so the client costs little beside the server.
  let records = 0;
  let previousLast = 0;
  const isCsv = target.includes("format=csv");
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buffer.byteLength;
    if (isCsv && previousLast === 0x0d && buffer[0] === 0x0a) records += 1;
    const mark = isCsv ? "\r\n" : "\n";
    for (let at = buffer.indexOf(mark); at !== -1; at = buffer.indexOf(mark, at + mark.length)) records += 1;
    previousLast = buffer[buffer.byteLength - 1] ?? 0;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, bytes, records, rssGrowthMb: (peak - rssBefore) / MB };
}

/** A bare node:http server streaming `bytes` in 64 KiB chunks, read by the same client. */
async function baseline(bytes: number) {
  const chunk = Buffer.alloc(64 * 1024, "a");
  const server = createServer((_request, response) => {
    let left = bytes;
    const write = () => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!response.write(part)) return response.once("drain", write);
      }
      response.end();
    };
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  try {
    return await download(`http://127.0.0.1:${address.port}/`, "");
  } finally {
    server.close();
  }
}

try {
  const { cookie } = await benchUser(url);
  const agent = await fetch(`${url}/api/agents`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url, cookie },
    body: JSON.stringify({ name: "Seeded", provider: "openai", model: "gpt-4o-mini" }),
  });
  const { id: agentId } = (await agent.json()) as { id: string };
  const [owner] = await queryRows<{ workspace_id: string }>(
    builder.deps.db,
    sql`select workspace_id from agents where id = ${agentId}`,
  );
  const seedStarted = performance.now();
  await seedMessages(builder.deps.db, {
    workspaceId: owner?.workspace_id ?? "",
    agentId,
    count: messageCount,
    contentLength,
  });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(
    `${messageCount} messages of ${contentLength} characters seeded on ${dbKind} in ${seedSeconds.toFixed(1)} s`,
  );

  const rows: (string | number)[][] = [];
  for (const format of ["csv", "jsonl"] as const) {
    const result = await download(`${url}/api/conversations/export?format=${format}`, cookie);
    const expected = messageCount + (format === "csv" ? 1 : 0);
    rows.push([
      `export ${format}`,
      result.records === expected ? result.records : `${result.records} of ${expected}`,
      result.bytes / MB,
      result.seconds,
      messageCount / result.seconds,
      result.rssGrowthMb,
    ]);
    const bare = await baseline(result.bytes);
    rows.push([
      `baseline: bare HTTP stream of the same bytes`,
      "—",
      bare.bytes / MB,
      bare.seconds,
      0,
      bare.rssGrowthMb,
    ]);
  }
  printTable(["what", "records", "MB", "seconds", "messages/s", "RSS growth MB"], rows);
  console.log("Targets: under 60 s for each format, RSS growth under 100 MB.");
} finally {
  await builder.stop();
  await database.drop();
}
