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
    // Unset: sized from the data at each start.
    expect(config.embeddedDbCacheMegabytes).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, EMBEDDED_DB_CACHE_MB: "256" }).embeddedDbCacheMegabytes).toBe(256);
    expect(config.billing).toMatchObject({
      enforce: false,
      reconcileIntervalSeconds: 600,
      starterCredits: 5_000,
    });
    expect(config.billing.packs.map((pack) => [pack.id, pack.credits, pack.priceMinor])).toEqual([
      ["pack_50k", 50_000, 5_000_000n],
      ["pack_100k", 105_000, 10_000_000n],
      ["pack_500k", 550_000, 50_000_000n],
    ]);
    expect(config.allowPrivateUrls).toBe(false);
  });

  it("leaves the sandbox's pool and queue to its defaults, keeps one warm runner per language, and reads them when set", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    expect(loadConfig({ DATA_DIR: dir }).sandbox).toEqual({ warmPerLanguage: 1 });
    expect(
      loadConfig({
        DATA_DIR: dir,
        SANDBOX_CONCURRENCY: "8",
        SANDBOX_WORKSPACE_CONCURRENCY: "2",
        SANDBOX_CONTENTION_WINDOW_MS: "0",
        SANDBOX_QUEUE_TIMEOUT_MS: "5000",
        SANDBOX_WARM_RUNNERS: "0",
      }).sandbox,
    ).toEqual({
      concurrency: 8,
      perWorkspaceConcurrency: 2,
      contentionWindowMs: 0,
      queueTimeoutMs: 5000,
      warmPerLanguage: 0,
    });
    expect(() => loadConfig({ DATA_DIR: dir, SANDBOX_WARM_RUNNERS: "-1" })).toThrow("SANDBOX_WARM_RUNNERS");
    expect(() => loadConfig({ DATA_DIR: dir, SANDBOX_CONCURRENCY: "0" })).toThrow("SANDBOX_CONCURRENCY");
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
    // PGlite's WebAssembly memory stops at 2 GB: a cache past 1 GB would leave it too little.
    expect(() => loadConfig({ EMBEDDED_DB_CACHE_MB: "4096" })).toThrow(/EMBEDDED_DB_CACHE_MB/);
  });

  it("reads the billing catalogue: packs in whole rupiah, prices merged over the defaults", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const config = loadConfig({
      DATA_DIR: dir,
      BILLING_ENFORCE: "1",
      BILLING_STARTER_CREDITS: "0",
      BILLING_PACKS: '[{"id":"tiny","credits":10,"price":10000}]',
      BILLING_PRICES: '{"tokens":{"openai/gpt-4o-mini":{"input":1,"output":2}},"sandbox_second":7}',
    });
    expect(config.billing.enforce).toBe(true);
    expect(config.billing.starterCredits).toBe(0);
    expect(config.billing.packs).toEqual([{ id: "tiny", credits: 10, priceMinor: 1_000_000n }]);
    expect(config.billing.prices.tokens["openai/gpt-4o-mini"]).toEqual({ input: 1, output: 2 });
    expect(config.billing.prices.tokens["*"]).toEqual({ input: 15_000, output: 60_000 });
    expect(config.billing.prices.sandboxSecond).toBe(7);
    expect(config.billing.prices.generations.image).toBe(800);
  });

  it("refuses a malformed billing catalogue, naming the variable", () => {
    expect(() => loadConfig({ BILLING_PACKS: "not json" })).toThrow(/BILLING_PACKS: must be JSON/);
    expect(() => loadConfig({ BILLING_PACKS: '[{"id":"a","credits":1,"price":1.5}]' })).toThrow(
      /BILLING_PACKS/,
    );
    expect(() => loadConfig({ BILLING_PRICES: '{"sandbox_second":-1}' })).toThrow(/BILLING_PRICES/);
  });

  it("serves from several processes only with PostgreSQL, naming WEB_CONCURRENCY otherwise", () => {
    const dir = () => mkdtempSync(join(tmpdir(), "cfg-"));
    expect(loadConfig({ DATA_DIR: dir() }).processes).toBe(1);
    expect(
      loadConfig({ DATA_DIR: dir(), WEB_CONCURRENCY: "2", DATABASE_URL: "postgres://db/app" }).processes,
    ).toBe(2);
    expect(() => loadConfig({ DATA_DIR: dir(), WEB_CONCURRENCY: "2" })).toThrow(
      /WEB_CONCURRENCY: above 1 needs DATABASE_URL/,
    );
    expect(() => loadConfig({ DATA_DIR: dir(), WEB_CONCURRENCY: "0" })).toThrow(/WEB_CONCURRENCY/);
  });

  it("treats empty variables as unset", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    expect(loadConfig({ DATA_DIR: dir, PORT: "", DATABASE_URL: "" }).port).toBe(3000);
  });
});

describe("file storage variables", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "cfg-"));

  it("keeps files on local disk under DATA_DIR without S3_BUCKET", () => {
    const dataDir = dir();
    expect(loadConfig({ DATA_DIR: dataDir }).storage).toEqual({
      kind: "local",
      root: join(dataDir, "builder", "files"),
    });
  });

  it("turns S3 on with S3_BUCKET, with the defaults of the configuration table", () => {
    expect(loadConfig({ DATA_DIR: dir(), S3_BUCKET: "my-files" }).storage).toEqual({
      kind: "s3",
      bucket: "my-files",
      region: "us-east-1",
      endpoint: undefined,
      forcePathStyle: false,
      prefix: "",
      credentials: undefined,
    });
    const minio = loadConfig({
      DATA_DIR: dir(),
      S3_BUCKET: "my-files",
      S3_REGION: "auto",
      S3_ENDPOINT: "http://minio:9000",
      S3_ACCESS_KEY_ID: "minioadmin",
      S3_SECRET_ACCESS_KEY: "minio-secret",
      S3_FORCE_PATH_STYLE: "1",
      S3_PREFIX: "/builder/files/",
    });
    expect(minio.storage).toEqual({
      kind: "s3",
      bucket: "my-files",
      region: "auto",
      endpoint: "http://minio:9000",
      forcePathStyle: true,
      prefix: "builder/files",
      credentials: { accessKeyId: "minioadmin", secretAccessKey: "minio-secret" },
    });
  });

  it("refuses S3 settings without a bucket, half a key pair, and bad names, naming each variable", () => {
    expect(() => loadConfig({ DATA_DIR: dir(), S3_ENDPOINT: "http://minio:9000", S3_PREFIX: "x" })).toThrow(
      /S3_BUCKET: required when S3_ENDPOINT, S3_PREFIX are set/,
    );
    expect(() => loadConfig({ DATA_DIR: dir(), S3_BUCKET: "files", S3_ACCESS_KEY_ID: "AKID" })).toThrow(
      /S3_SECRET_ACCESS_KEY: required with S3_ACCESS_KEY_ID/,
    );
    expect(() => loadConfig({ DATA_DIR: dir(), S3_BUCKET: "files", S3_SECRET_ACCESS_KEY: "secret" })).toThrow(
      /S3_ACCESS_KEY_ID: required with S3_SECRET_ACCESS_KEY/,
    );
    expect(() =>
      loadConfig({ DATA_DIR: dir(), S3_BUCKET: "Not_A_Bucket", S3_PREFIX: "a/../b", S3_ENDPOINT: "ftp://x" }),
    ).toThrow(/S3_BUCKET: must be a bucket name[\s\S]*S3_ENDPOINT:[\s\S]*S3_PREFIX: must not contain/);
  });

  it("never puts the secret key in a configuration error", () => {
    const error = (() => {
      try {
        loadConfig({ DATA_DIR: dir(), S3_SECRET_ACCESS_KEY: "very-secret-value" });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toMatch(/S3_BUCKET: required/);
    expect(error?.message).not.toContain("very-secret-value");
  });
});
