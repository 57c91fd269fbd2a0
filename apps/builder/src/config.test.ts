import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("applies the defaults of the configuration table", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const config = loadConfig({ DATA_DIR: dir });
    expect(config.port).toBe(3000);
    expect(config.paymentsUrl).toBe("http://127.0.0.1:4000");
    expect(config.ragMaxUploadBytes).toBe(25 * 1024 * 1024);
    expect(config.billing).toEqual({ enforce: false, reconcileIntervalSeconds: 600 });
    expect(config.allowPrivateUrls).toBe(false);
  });

  it("generates SECRET_KEY once into the data directory with mode 0600 and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const first = loadConfig({ DATA_DIR: dir }).secretKey;
    const second = loadConfig({ DATA_DIR: dir }).secretKey;
    expect(first).toHaveLength(43);
    expect(second).toBe(first);
    const file = join(dir, "builder", "secret_key");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("names every bad variable in one message", () => {
    expect(() => loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", SECRET_KEY: "short" })).toThrow(
      /PORT:[\s\S]*DATABASE_URL:[\s\S]*SECRET_KEY: must be at least 32 characters/,
    );
  });

  it("treats empty variables as unset", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    expect(loadConfig({ DATA_DIR: dir, PORT: "", DATABASE_URL: "" }).port).toBe(3000);
  });
});
