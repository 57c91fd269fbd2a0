import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOpenAI, startFakeS3 } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, buildServices, compiledEntry, root, sourceStamp } from "./build.ts";

describe("the source stamp", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "stamp-"));
    mkdirSync(join(dir, "src"));
    mkdirSync(join(dir, "src", "node_modules"));
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(dir, "src", "a.test.ts"), "test\n");
    writeFileSync(join(dir, "src", "node_modules", "dep.js"), "x\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("changes when a source file is edited or touched, and not for tests or dependencies", () => {
    const before = sourceStamp(["src"], dir);
    expect(sourceStamp(["src"], dir)).toBe(before);

    writeFileSync(join(dir, "src", "a.test.ts"), "another test\n");
    writeFileSync(join(dir, "src", "node_modules", "dep.js"), "y\n");
    expect(sourceStamp(["src"], dir)).toBe(before);

    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, "src", "a.ts"), later, later);
    const touched = sourceStamp(["src"], dir);
    expect(touched).not.toBe(before);

    writeFileSync(join(dir, "src", "b.ts"), "export const b = 2;\n");
    expect(sourceStamp(["src"], dir)).not.toBe(touched);
  });
});

/** A free port on 127.0.0.1 (listened on, then closed). */
function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * Runs a compiled service with no loader (a .ts file reached at run time would fail to load) until
 * `url` answers 200, then `use`, then stops it with SIGTERM and expects a clean exit.
 */
async function withCompiledService(
  service: "builder" | "payments",
  env: Record<string, string>,
  url: string,
  use: () => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `compiled-${service}-`));
  const child = spawn(process.execPath, [compiledEntry(service)], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env },
    stdio: "inherit",
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    let status: number | undefined;
    for (let i = 0; i < 600 && status !== 200; i++) {
      status = await fetch(url).then(
        (response) => response.status,
        () => undefined,
      );
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
    await use();
  } finally {
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("the compiled payment service", () => {
  it("runs from apps/payments/dist, finds its migrations and answers /readyz", async () => {
    await buildIfStale();
    expect(readFileSync(compiledEntry("payments"), "utf8")).not.toContain(root);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    await withCompiledService("payments", { PAYMENTS_PORT: String(port) }, `${base}/readyz`, async () => {
      const openapi = await fetch(`${base}/v1/openapi.json`);
      expect(openapi.status).toBe(200);
    });
  }, 120_000);
});

describe("the compiled builder", () => {
  // Packages loaded on first use sit in chunks of their own, and a CommonJS one's exports then come
  // as `default` only: the source-run tests cannot see that, so the compiled code calls each.
  it("reaches a model through undici, keeps files in S3 with the AWS SDK (both loaded on first use) and embeds on its thread", async () => {
    await buildIfStale();
    const model = await startFakeOpenAI({ apiKey: "sk-compiled-fake-key-0001" });
    model.script = () => ({ text: "Compiled and answering." });
    const s3 = await startFakeS3({ buckets: ["compiled"] });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      PAYMENTS_URL: "http://127.0.0.1:9",
      ALLOW_PRIVATE_URLS: "1",
      S3_BUCKET: "compiled",
      S3_ENDPOINT: s3.url,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      S3_FORCE_PATH_STYLE: "1",
    };
    try {
      await withCompiledService("builder", env, `${base}/readyz`, async () => {
        const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: base },
          body: JSON.stringify({ email: "compiled@example.com", password: "correct horse", name: "C" }),
        });
        expect(signUp.status).toBe(200);
        const cookie = (signUp.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
        const post = async (path: string, body: unknown) => {
          const response = await fetch(`${base}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", origin: base, cookie },
            body: JSON.stringify(body),
          });
          return { status: response.status, body: (await response.json()) as Record<string, unknown> };
        };
        const credential = await post("/api/credentials", {
          provider: "openai-compatible",
          api_key: "sk-compiled-fake-key-0001",
          base_url: model.baseUrl,
        });
        expect(credential.status).toBe(201);
        const agent = await post("/api/agents", {
          name: "Compiled",
          instructions: "Answer briefly.",
          provider: "openai-compatible",
          model: "llama3.2",
        });
        expect(agent.status).toBe(201);
        const chat = await post(`/api/agents/${agent.body.id}/chat`, { message: "Are you there?" });
        expect(chat).toMatchObject({
          status: 200,
          body: { message: { content: "Compiled and answering." } },
        });

        const knowledgeBase = await post("/api/knowledge-bases", { name: "compiled" });
        expect(knowledgeBase.status).toBe(201);
        const form = new FormData();
        form.set("knowledge_base_id", String(knowledgeBase.body.id));
        form.set(
          "file",
          new Blob(["# Compiled\n\nStored in the bucket."], { type: "text/markdown" }),
          "c.md",
        );
        const upload = await fetch(`${base}/api/rag/upload`, {
          method: "POST",
          headers: { origin: base, cookie },
          body: form,
        });
        expect(upload.status).toBe(202);
        expect(s3.keys("compiled").length).toBeGreaterThan(0);
        // Read back from the bucket and embedded on the local embedder's thread, whose TypeScript the
        // compiled builder loads from the sources by Node's own type stripping.
        const documentId = String(((await upload.json()) as { id: string }).id);
        let document: { status?: string; error?: string | null } = {};
        for (let i = 0; i < 600 && document.status !== "ready" && document.status !== "failed"; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const response = await fetch(`${base}/api/rag/documents/${documentId}`, {
            headers: { origin: base, cookie },
          });
          document = (await response.json()) as typeof document;
        }
        expect(document).toMatchObject({ status: "ready", error: null });
      });
    } finally {
      await model.close();
      await s3.close();
    }
  }, 180_000);
});

/** The commands of this process's live children, from /proc. */
function childCommands(): string[] {
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === process.pid && state !== "Z")
        found.push(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

describe("the services' build", () => {
  it("stops esbuild's service process when it ends (it held ~700 MB for the life of `npm start`)", async () => {
    await buildServices();
    // Stopping asks the service to exit; on a busy machine the process may take a moment to go.
    await expect.poll(() => childCommands(), { timeout: 15_000, interval: 100 }).not.toContain("esbuild");
  }, 180_000);
});
