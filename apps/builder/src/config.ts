import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { configError, presentVariables, readOrCreateSecretFile, severalProcessesNeedServer } from "@app/core";
import { z } from "zod";
import {
  type CreditPack,
  DEFAULT_PACKS,
  DEFAULT_PRICES,
  DEFAULT_STARTER_CREDITS,
  mergePrices,
  type PriceTable,
  packsInput,
  pricesInput,
} from "./billing/price-table.ts";
import { PROVIDERS } from "./providers/catalogue.ts";
import type { StorageSettings } from "./storage/open-storage.ts";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((value) => value === "1" || value === "true");

const port = z.coerce.number().int().min(0).max(65535);
const url = z.url({ protocol: /^https?$/ });

/** The S3-compatible file store; `S3_BUCKET` turns it on. */
const s3Variables = z.object({
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      "must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens",
    )
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, "must be a region name such as us-east-1 (auto for Cloudflare R2)")
    .optional(),
  S3_ENDPOINT: url.optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: flag,
  S3_PREFIX: z
    .string()
    .max(200)
    .regex(
      /^\/*[A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.-]+)*\/*$/,
      "must be a key prefix such as builder/files",
    )
    .refine(
      (prefix) => !prefix.split("/").some((part) => part === "." || part === ".."),
      "must not contain . or ..",
    )
    .optional(),
});

/** S3 settings without a bucket would silently leave files on local disk; half a key pair signs nothing. */
function checkS3Variables(e: z.output<typeof s3Variables>, ctx: z.RefinementCtx): void {
  if (!e.S3_BUCKET) {
    const given = Object.entries({
      S3_REGION: e.S3_REGION !== undefined,
      S3_ENDPOINT: e.S3_ENDPOINT !== undefined,
      S3_ACCESS_KEY_ID: e.S3_ACCESS_KEY_ID !== undefined,
      S3_SECRET_ACCESS_KEY: e.S3_SECRET_ACCESS_KEY !== undefined,
      S3_FORCE_PATH_STYLE: e.S3_FORCE_PATH_STYLE,
      S3_PREFIX: e.S3_PREFIX !== undefined,
    })
      .filter(([, isSet]) => isSet)
      .map(([name]) => name);
    if (given.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["S3_BUCKET"],
        message: `required when ${given.join(", ")} ${given.length > 1 ? "are" : "is"} set (files go to local disk without it)`,
      });
  }
  if (e.S3_ACCESS_KEY_ID && !e.S3_SECRET_ACCESS_KEY)
    ctx.addIssue({
      code: "custom",
      path: ["S3_SECRET_ACCESS_KEY"],
      message: "required with S3_ACCESS_KEY_ID",
    });
  if (e.S3_SECRET_ACCESS_KEY && !e.S3_ACCESS_KEY_ID)
    ctx.addIssue({
      code: "custom",
      path: ["S3_ACCESS_KEY_ID"],
      message: "required with S3_SECRET_ACCESS_KEY",
    });
}

/** A JSON value in a variable, checked against `schema`. */
function jsonVariable<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** The fixed variable names of spec/builder.md, plus LOG_LEVEL, the auth rate limit and the billing catalogue. */
const envSchema = z.object({
  PORT: port.default(3000),
  PAYMENTS_PORT: port.default(4000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Processes serving the port (node:cluster); above 1 only with PostgreSQL. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  SECRET_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  PUBLIC_URL: url.optional(),
  ALLOW_PRIVATE_URLS: flag,
  PAYMENTS_URL: url.optional(),
  PAYMENTS_SECRET_KEY: z
    .string()
    .regex(/^sk_(test|live)_[A-Za-z0-9_-]{16,}$/, "must look like sk_test_… or sk_live_…")
    .optional(),
  REPLICATE_API_TOKEN: z.string().min(1).optional(),
  REPLICATE_BASE_URL: url.optional(),
  RAG_MAX_UPLOAD_MB: z.coerce.number().positive().max(1024).default(25),
  /** The embedded database's page cache; unset, sized from the data at start. PGlite's WebAssembly memory stops at 2 GB. */
  EMBEDDED_DB_CACHE_MB: z.coerce.number().int().min(16).max(1024).optional(),
  BILLING_ENFORCE: flag,
  BILLING_RECONCILE_INTERVAL: z.coerce.number().int().positive().default(600),
  BILLING_STARTER_CREDITS: z.coerce.number().int().min(0).max(1_000_000_000).default(DEFAULT_STARTER_CREDITS),
  BILLING_PACKS: jsonVariable(packsInput).optional(),
  BILLING_PRICES: jsonVariable(pricesInput).optional(),
  AUTH_SIGN_IN_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** The code sandbox's pool, per-workspace quota, borrowing window and queue timeout; unset, the sandbox's defaults. */
  SANDBOX_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  SANDBOX_WORKSPACE_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
  SANDBOX_CONTENTION_WINDOW_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  SANDBOX_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).optional(),
  /**
   * Pre-started runners per language (0 starts none until a run asks). One, not the sandbox's one per
   * pool slot: each is a process tree held from the start (issue 25's idle budget), and a second run
   * at once pays one sandbox start.
   */
  SANDBOX_WARM_RUNNERS: z.coerce.number().int().min(0).max(64).default(1),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(600).default(10),
  /** A workflow run whose process has not refreshed its heartbeat for this long is taken over and resumed. */
  WORKFLOW_RUN_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  /** Finished workflow runs older than this many days are deleted; 0 keeps them forever. */
  RUN_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** Each workflow keeps at most this many finished runs (the newest); 0 sets no limit. */
  RUN_RETENTION_PER_WORKFLOW: z.coerce.number().int().min(0).max(100_000_000).default(10_000),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  ...s3Variables.shape,
});

export type BuilderConfig = {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * PGlite's page cache (`shared_buffers`) in megabytes, unused with `databaseUrl`; undefined sizes
   * it at each start from the search tables' size (see `embeddedCacheSize` and `recordHotSet`). Vector search reads the HNSW index
   * page by page: once the index outgrows the cache, every search goes back to the data directory
   * for pages (at 100k chunks of 384 dimensions the index is about 200 MB).
   */
  embeddedDbCacheMegabytes: number | undefined;
  /** Processes serving the port; each is a full copy of the service over the shared database. */
  processes: number;
  secretKey: string;
  publicUrl: string;
  /** Whether `PUBLIC_URL` was set, i.e. outside services (Replicate's webhooks) can reach `publicUrl`. */
  hasPublicUrl: boolean;
  allowPrivateUrls: boolean;
  /** How long a workflow run's heartbeat may be silent before another process takes the run over. */
  workflowRunLeaseMs: number;
  /** Which finished runs are pruned (0: that rule is off). */
  runRetention: { maxAgeDays: number; maxPerWorkflow: number };
  paymentsUrl: string;
  paymentsSecretKey: string | undefined;
  replicate: { apiToken: string | undefined; baseUrl: string | undefined };
  ragMaxUploadBytes: number;
  /** Where uploaded and generated files are kept: `<DATA_DIR>/builder/files`, or the S3 bucket of `S3_BUCKET`. */
  storage: StorageSettings;
  billing: {
    enforce: boolean;
    reconcileIntervalSeconds: number;
    /** Credits a new workspace starts with. */
    starterCredits: number;
    packs: readonly CreditPack[];
    prices: PriceTable;
  };
  auth: { signInPerMinute: number };
  /** Unset fields take the sandbox's defaults (pool = cores, a workspace half of it unless alone for 5 s, 30 s queue). */
  sandbox: {
    concurrency?: number;
    perWorkspaceConcurrency?: number;
    contentionWindowMs?: number;
    queueTimeoutMs?: number;
    warmPerLanguage?: number;
  };
  logLevel: string | undefined;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`; otherwise it is open, like most exporters. */
  metricsToken: string | undefined;
  /** How long a stop waits for requests and streams in flight before cutting them. */
  shutdownGraceMs: number;
  /** Where OpenTelemetry traces go (OTLP/HTTP); unset, tracing is off. */
  otlpEndpoint: string | undefined;
  /** Server-wide provider keys by provider id, from the variables the providers' own SDKs read. */
  providerKeys: Record<string, string>;
};

/**
 * Reads and validates the builder's environment once. Without `SECRET_KEY` a key is generated
 * into `DATA_DIR/builder/secret_key` (mode 0600) on first start and reused after.
 *
 * @example const config = loadConfig(process.env);
 */
export function loadConfig(env: Record<string, string | undefined>): BuilderConfig {
  const parsed = envSchema
    .superRefine(checkS3Variables)
    .superRefine(severalProcessesNeedServer("WEB_CONCURRENCY", "DATABASE_URL"))
    .safeParse(presentVariables(env));
  if (!parsed.success) throw configError(parsed.error.issues);
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    embeddedDbCacheMegabytes: e.EMBEDDED_DB_CACHE_MB,
    processes: e.WEB_CONCURRENCY,
    secretKey:
      e.SECRET_KEY ??
      readOrCreateSecretFile(join(dataDir, "builder", "secret_key"), () =>
        randomBytes(32).toString("base64url"),
      ),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    hasPublicUrl: e.PUBLIC_URL !== undefined,
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    workflowRunLeaseMs: e.WORKFLOW_RUN_LEASE_SECONDS * 1000,
    runRetention: { maxAgeDays: e.RUN_RETENTION_DAYS, maxPerWorkflow: e.RUN_RETENTION_PER_WORKFLOW },
    paymentsUrl: (e.PAYMENTS_URL ?? `http://127.0.0.1:${e.PAYMENTS_PORT}`).replace(/\/$/, ""),
    paymentsSecretKey: e.PAYMENTS_SECRET_KEY,
    replicate: { apiToken: e.REPLICATE_API_TOKEN, baseUrl: e.REPLICATE_BASE_URL },
    ragMaxUploadBytes: Math.floor(e.RAG_MAX_UPLOAD_MB * 1024 * 1024),
    storage: e.S3_BUCKET
      ? {
          kind: "s3",
          bucket: e.S3_BUCKET,
          region: e.S3_REGION ?? "us-east-1",
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
          prefix: (e.S3_PREFIX ?? "").replace(/^\/+|\/+$/g, ""),
          // Both or neither (checked above); neither leaves the AWS SDK its default credential chain.
          credentials:
            e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
              ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
              : undefined,
        }
      : { kind: "local", root: join(dataDir, "builder", "files") },
    billing: {
      enforce: e.BILLING_ENFORCE,
      reconcileIntervalSeconds: e.BILLING_RECONCILE_INTERVAL,
      starterCredits: e.BILLING_STARTER_CREDITS,
      packs: e.BILLING_PACKS ?? DEFAULT_PACKS,
      prices: e.BILLING_PRICES ? mergePrices(DEFAULT_PRICES, e.BILLING_PRICES) : DEFAULT_PRICES,
    },
    auth: { signInPerMinute: e.AUTH_SIGN_IN_PER_MINUTE },
    sandbox: {
      ...(e.SANDBOX_CONCURRENCY === undefined ? {} : { concurrency: e.SANDBOX_CONCURRENCY }),
      ...(e.SANDBOX_WORKSPACE_CONCURRENCY === undefined
        ? {}
        : { perWorkspaceConcurrency: e.SANDBOX_WORKSPACE_CONCURRENCY }),
      ...(e.SANDBOX_CONTENTION_WINDOW_MS === undefined
        ? {}
        : { contentionWindowMs: e.SANDBOX_CONTENTION_WINDOW_MS }),
      ...(e.SANDBOX_QUEUE_TIMEOUT_MS === undefined ? {} : { queueTimeoutMs: e.SANDBOX_QUEUE_TIMEOUT_MS }),
      warmPerLanguage: e.SANDBOX_WARM_RUNNERS,
    },
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownGraceMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    providerKeys: providerKeysFrom(presentVariables(env)),
  };
}

function providerKeysFrom(env: Record<string, string>): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const provider of PROVIDERS) {
    const value = provider.env_key ? env[provider.env_key]?.trim() : undefined;
    if (value) keys[provider.id] = value;
  }
  return keys;
}
