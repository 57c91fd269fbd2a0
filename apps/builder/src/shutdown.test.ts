// A stop drains: what is in flight finishes before the database closes under it.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@app/http";
import { freePort } from "@app/testing";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { startBuilder } from "./start.ts";

const dataDir = mkdtempSync(join(tmpdir(), "builder-shutdown-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("stopping the builder", () => {
  it("lets a blocking workflow run in flight finish and answer, refusing new connections meanwhile", async () => {
    // An outside server that holds the workflow's HTTP call until the test lets it answer.
    const held: ServerResponse[] = [];
    let received = 0;
    const outside = createServer((_request, response) => {
      received++;
      held.push(response);
    });
    await new Promise<void>((resolve) => outside.listen(0, "127.0.0.1", resolve));
    const outsideUrl = `http://127.0.0.1:${(outside.address() as AddressInfo).port}`;

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      PORT: String(port),
      DATA_DIR: dataDir,
      SECRET_KEY: "test-secret-key-that-is-long-enough-0123456789",
      PUBLIC_URL: base,
      ALLOW_PRIVATE_URLS: "1",
      // Far beyond the test's timeout: the stop can only end because the run did.
      SHUTDOWN_TIMEOUT_SECONDS: "600",
    });
    const running = await startBuilder(config, {
      hostname: "127.0.0.1",
      logger: createLogger({ service: "shutdown-test", level: "silent" }),
    });
    const post = (path: string, body: unknown, cookie = "") =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base, cookie },
        body: JSON.stringify(body),
      });
    const signUp = await post("/api/auth/sign-up/email", {
      email: "drain@example.com",
      password: "correct horse battery",
      name: "Drain",
    });
    const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const node = (id: string, type: string, data: Record<string, unknown>) => ({
      id,
      type,
      position: { x: 0, y: 0 },
      data,
    });
    const workflow = await post(
      "/api/workflows",
      {
        name: "slow",
        graph: {
          nodes: [
            node("start", "start", { inputs: [] }),
            node("call", "http", { method: "GET", url: `${outsideUrl}/slow` }),
            node("done", "end", { outputs: [{ name: "status", value: "{{call.status}}" }] }),
          ],
          edges: [
            { id: "a", source: "start", target: "call" },
            { id: "b", source: "call", target: "done" },
          ],
        },
      },
      cookie,
    );
    expect(workflow.status).toBe(201);
    const workflowId = ((await workflow.json()) as { id: string }).id;

    const run = post(`/api/workflows/${workflowId}/runs`, { inputs: {} }, cookie);
    while (received === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    let isStopped = false;
    const stopped = running.stop().then(() => {
      isStopped = true;
    });
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    expect(isStopped).toBe(false);

    for (const response of held) response.end("ok");
    const answer = await run;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: "succeeded", outputs: { status: 200 } });
    await stopped;
    expect(isStopped).toBe(true);
    await new Promise((resolve) => outside.close(resolve));
  }, 120_000);

  it("records what search keeps hot beside the data directory, which the next start sizes its page cache from", async () => {
    const ownDir = mkdtempSync(join(tmpdir(), "builder-hot-set-"));
    try {
      const port = await freePort();
      const config = loadConfig({
        PORT: String(port),
        DATA_DIR: ownDir,
        SECRET_KEY: "test-secret-key-that-is-long-enough-0123456789",
      });
      const running = await startBuilder(config, {
        hostname: "127.0.0.1",
        logger: createLogger({ service: "hot-set-test", level: "silent" }),
      });
      await running.stop();
      const hotSet = JSON.parse(readFileSync(join(ownDir, "builder", "db.hot-set.json"), "utf8"));
      expect(hotSet).toEqual({
        megabytes: expect.any(Number),
        tables: ["knowledge_chunks", "knowledge_terms", "knowledge_document_terms", "knowledge_statistics"],
      });
    } finally {
      rmSync(ownDir, { recursive: true, force: true });
    }
  }, 120_000);
});
