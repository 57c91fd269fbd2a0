import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { configError, presentVariables, readOrCreateSecretFile } from "@app/core";
import { z } from "zod";
import { PROVIDERS } from "./providers/catalogue.ts";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((value) => value === "1" || value === "true");

const port = z.coerce.number().int().min(0).max(65535);
const url = z.url({ protocol: /^https?$/ });

/** The fixed variable names of spec/builder.md, plus LOG_LEVEL and the auth rate limit. */
const envSchema = z.object({
  PORT: port.default(3000),
  PAYMENTS_PORT: port.default(4000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
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
  BILLING_ENFORCE: flag,
  BILLING_RECONCILE_INTERVAL: z.coerce.number().int().positive().default(600),
  AUTH_SIGN_IN_PER_MINUTE: z.coerce.number().int().positive().default(10),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
});

export type BuilderConfig = {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  secretKey: string;
  publicUrl: string;
  /** Whether `PUBLIC_URL` was set, i.e. outside services (Replicate's webhooks) can reach `publicUrl`. */
  hasPublicUrl: boolean;
  allowPrivateUrls: boolean;
  paymentsUrl: string;
  paymentsSecretKey: string | undefined;
  replicate: { apiToken: string | undefined; baseUrl: string | undefined };
  ragMaxUploadBytes: number;
  billing: { enforce: boolean; reconcileIntervalSeconds: number };
  auth: { signInPerMinute: number };
  logLevel: string | undefined;
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
  const parsed = envSchema.safeParse(presentVariables(env));
  if (!parsed.success) throw configError(parsed.error.issues);
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    secretKey:
      e.SECRET_KEY ??
      readOrCreateSecretFile(join(dataDir, "builder", "secret_key"), () =>
        randomBytes(32).toString("base64url"),
      ),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    hasPublicUrl: e.PUBLIC_URL !== undefined,
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    paymentsUrl: (e.PAYMENTS_URL ?? `http://127.0.0.1:${e.PAYMENTS_PORT}`).replace(/\/$/, ""),
    paymentsSecretKey: e.PAYMENTS_SECRET_KEY,
    replicate: { apiToken: e.REPLICATE_API_TOKEN, baseUrl: e.REPLICATE_BASE_URL },
    ragMaxUploadBytes: Math.floor(e.RAG_MAX_UPLOAD_MB * 1024 * 1024),
    billing: { enforce: e.BILLING_ENFORCE, reconcileIntervalSeconds: e.BILLING_RECONCILE_INTERVAL },
    auth: { signInPerMinute: e.AUTH_SIGN_IN_PER_MINUTE },
    logLevel: e.LOG_LEVEL,
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
