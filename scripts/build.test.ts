import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale, compiledEntry, root, sourceStamp } from "./build.ts";

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

describe("the compiled payment service", () => {
  it("runs from apps/payments/dist, finds its migrations and answers /readyz", async () => {
    await buildIfStale();
    expect(readFileSync(compiledEntry("payments"), "utf8")).not.toContain(root);
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const address = server.address();
        server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
      });
    });
    const dataDir = mkdtempSync(join(tmpdir(), "compiled-payments-"));
    // No loader: a .ts file reached at run time would fail to load.
    const child = spawn(process.execPath, [compiledEntry("payments")], {
      env: { PATH: process.env.PATH, PAYMENTS_PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "silent" },
      stdio: "inherit",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      let status: number | undefined;
      for (let i = 0; i < 600 && status !== 200; i++) {
        status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status,
          () => undefined,
        );
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(200);
      const openapi = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
      expect(openapi.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
