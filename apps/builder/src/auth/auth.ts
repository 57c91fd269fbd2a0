import { createHmac } from "node:crypto";
import { newId } from "@app/core";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { BuilderDb } from "../db/index.ts";
import { account, rateLimit, session, user, verification } from "./schema.ts";

/** The request header our wrapper fills with the socket's address; clients cannot set it. */
export const CLIENT_IP_HEADER = "x-builder-client-ip";

/** Per client address; generous enough for a classroom behind one NAT, tight enough to slow scripted sign-ups. */
const SIGN_UPS_PER_MINUTE = 30;

const ID_PREFIXES: Record<string, string> = {
  user: "usr",
  session: "ses",
  account: "acc",
  verification: "ver",
  rateLimit: "rl",
};

export interface AuthOptions {
  db: BuilderDb;
  secretKey: string;
  publicUrl: string;
  /** Origins allowed to send cookie-authenticated writes besides `publicUrl`. */
  trustedOrigins: string[];
  signInPerMinute: number;
}

/**
 * better-auth with e-mail and password, sessions in our database, rate limits in the
 * database (so several processes share them) keyed by the socket's address.
 */
export function createAuth(options: AuthOptions) {
  return betterAuth({
    appName: "Builder",
    baseURL: options.publicUrl,
    basePath: "/api/auth",
    // A key of its own, so the sessions' key never equals the credential-encryption key.
    secret: createHmac("sha256", options.secretKey).update("better-auth").digest("base64url"),
    database: drizzleAdapter(options.db, {
      provider: "pg",
      schema: { user, session, account, verification, rateLimit },
    }),
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, autoSignIn: true },
    trustedOrigins: [options.publicUrl, ...options.trustedOrigins],
    rateLimit: {
      enabled: true,
      storage: "database",
      window: 60,
      max: 300,
      customRules: {
        "/sign-in/email": { window: 60, max: options.signInPerMinute },
        "/sign-up/email": { window: 60, max: SIGN_UPS_PER_MINUTE },
      },
    },
    telemetry: { enabled: false },
    logger: { disabled: true },
    advanced: {
      disableOriginCheck: false,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      database: { generateId: ({ model }) => newId(ID_PREFIXES[model] ?? model.slice(0, 3)) },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
