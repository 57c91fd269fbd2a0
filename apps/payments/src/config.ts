import { join, resolve } from "node:path";
import { configError, presentVariables, severalProcessesNeedServer } from "@app/core";
import { z } from "zod";
import { DEFAULT_CURRENCIES, ISO_4217_MINOR_UNITS } from "./shared/money.ts";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((value) => value === "1" || value === "true");

const envSchema = z.object({
  PAYMENTS_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATA_DIR: z.string().min(1).default("./data"),
  PAYMENTS_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Processes serving the port (node:cluster); above 1 only with PostgreSQL. */
  PAYMENTS_WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  PAYMENTS_SECRET_KEY: z
    .string()
    .regex(/^sk_(test|live)_[A-Za-z0-9_-]{16,}$/, "must look like sk_test_… or sk_live_…")
    .optional(),
  PAYMENTS_ALLOW_PRIVATE_WEBHOOKS: flag,
  /** `0` when deliveries are made by separate `npm run worker` processes (PostgreSQL only). */
  PAYMENTS_INLINE_WORKER: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((value) => value !== "0" && value !== "false"),
  PAYMENTS_DELIVERY_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).optional(),
  PAYMENTS_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(2000).default(64),
  PAYMENTS_WORKER_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(50),
  PAYMENTS_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PAYMENTS_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Comma-separated ISO 4217 codes the API accepts (default IDR). */
  PAYMENTS_CURRENCIES: z
    .string()
    .default(DEFAULT_CURRENCIES.join(","))
    .transform((value) => [
      ...new Set(
        value
          .split(",")
          .map((code) => code.trim())
          .filter((code) => code !== ""),
      ),
    ])
    .pipe(
      z
        .array(
          z.string().refine((code) => code in ISO_4217_MINOR_UNITS, {
            message: `each must be one of ${Object.keys(ISO_4217_MINOR_UNITS).join(", ")} (ISO 4217 codes with 0 or 2 minor units)`,
          }),
        )
        .min(1),
    ),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(600).default(10),
});

export interface PaymentsConfig {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Processes serving the port; each is a full copy of the service over the shared database. */
  processes: number;
  /** The merchant key made sure of at start (`PAYMENTS_SECRET_KEY`), if any. */
  bootstrapSecretKey: string | undefined;
  allowPrivateWebhooks: boolean;
  /** Whether the service process also delivers webhooks (always with PGlite). */
  isInlineWorker: boolean;
  /** How long a worker's claim on a delivery lasts; defaults to the engine's (30 s). */
  deliveryLeaseMs: number | undefined;
  workerConcurrency: number;
  /** How often an idle worker looks for due deliveries (other processes cannot wake it). */
  workerPollMs: number;
  dbPoolSize: number;
  publicUrl: string;
  /** ISO 4217 codes the API accepts (`PAYMENTS_CURRENCIES`). */
  currencies: string[];
  logLevel: string | undefined;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`; otherwise it is open, like most exporters. */
  metricsToken: string | undefined;
  /** How long a stop waits for requests in flight before cutting them. */
  shutdownGraceMs: number;
}

/**
 * Reads and validates the payment service's environment once.
 *
 * @example const config = loadPaymentsConfig(process.env);
 */
export function loadPaymentsConfig(env: Record<string, string | undefined>): PaymentsConfig {
  const parsed = envSchema
    .superRefine(severalProcessesNeedServer("PAYMENTS_WEB_CONCURRENCY", "PAYMENTS_DATABASE_URL"))
    .safeParse(presentVariables(env));
  if (!parsed.success) throw configError(parsed.error.issues);
  const e = parsed.data;
  return {
    port: e.PAYMENTS_PORT,
    dataDir: join(resolve(e.DATA_DIR), "payments"),
    databaseUrl: e.PAYMENTS_DATABASE_URL,
    processes: e.PAYMENTS_WEB_CONCURRENCY,
    bootstrapSecretKey: e.PAYMENTS_SECRET_KEY,
    allowPrivateWebhooks: e.PAYMENTS_ALLOW_PRIVATE_WEBHOOKS,
    // PGlite lives inside the service process, so no other process could deliver.
    isInlineWorker: e.PAYMENTS_INLINE_WORKER || !e.PAYMENTS_DATABASE_URL,
    deliveryLeaseMs: e.PAYMENTS_DELIVERY_LEASE_MS,
    workerConcurrency: e.PAYMENTS_WORKER_CONCURRENCY,
    workerPollMs: e.PAYMENTS_WORKER_POLL_MS,
    dbPoolSize: e.PAYMENTS_DB_POOL_SIZE,
    publicUrl: (e.PAYMENTS_PUBLIC_URL ?? `http://localhost:${e.PAYMENTS_PORT}`).replace(/\/$/, ""),
    currencies: e.PAYMENTS_CURRENCIES,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownGraceMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
  };
}
