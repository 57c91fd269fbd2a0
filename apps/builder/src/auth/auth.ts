import { createHmac } from "node:crypto";
import { newId } from "@app/core";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { twoFactor as twoFactorPlugin } from "better-auth/plugins/two-factor";
import type { BuilderDb } from "../db/index.ts";
import type { Mailer } from "../mail/mailer.ts";
import { changeEmailMessage, resetPasswordMessage, verifyEmailMessage } from "../mail/templates.ts";
import { PRODUCT_NAME } from "../product.ts";
import { account, rateLimit, session, twoFactor, user, verification } from "./schema.ts";

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
  twoFactor: "tfa",
};

/** A reset link works for an hour; a verification or e-mail-change link for a day. */
export const RESET_PASSWORD_EXPIRES_SECONDS = 60 * 60;
const VERIFICATION_EXPIRES_SECONDS = 24 * 60 * 60;

export interface AuthOptions {
  db: BuilderDb;
  secretKey: string;
  publicUrl: string;
  /** Origins allowed to send cookie-authenticated writes besides `publicUrl`. */
  trustedOrigins: string[];
  signInPerMinute: number;
  /** Sign-in is refused (403 email_not_verified) until the address is confirmed. */
  requireEmailVerification: boolean;
  /** Verification, reset and e-mail-change messages go out through it. */
  mailer: Mailer;
  /** Told after any session is deleted (sign-out, revocation, password reset, account deletion). */
  onSessionDeleted(session: { id: string; userId: string }): void;
  /** Runs before an account is deleted; throws (a better-auth `APIError`) to refuse. */
  beforeDeleteUser(user: { id: string }): Promise<void>;
}

/**
 * better-auth with e-mail and password, sessions in our database, rate limits in the
 * database (so several processes share them) keyed by the socket's address.
 */
export function createAuth(options: AuthOptions) {
  return betterAuth({
    appName: PRODUCT_NAME,
    baseURL: options.publicUrl,
    basePath: "/api/auth",
    // A key of its own, so the sessions' key never equals the credential-encryption key.
    secret: createHmac("sha256", options.secretKey).update("better-auth").digest("base64url"),
    database: drizzleAdapter(options.db, {
      provider: "pg",
      schema: { user, session, account, verification, rateLimit, twoFactor },
    }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      autoSignIn: true,
      requireEmailVerification: options.requireEmailVerification,
      resetPasswordTokenExpiresIn: RESET_PASSWORD_EXPIRES_SECONDS,
      revokeSessionsOnPasswordReset: true,
      // The mailer queues and returns: a slow mail server never holds the request.
      sendResetPassword: async ({ user, url }) =>
        options.mailer.send(resetPasswordMessage(user.email, url, RESET_PASSWORD_EXPIRES_SECONDS / 60)),
    },
    emailVerification: {
      sendOnSignUp: true,
      // Where sign-in waits for the address, a refused sign-in sends a fresh link.
      sendOnSignIn: options.requireEmailVerification,
      autoSignInAfterVerification: true,
      expiresIn: VERIFICATION_EXPIRES_SECONDS,
      sendVerificationEmail: async ({ user, url }) =>
        options.mailer.send(verifyEmailMessage(user.email, url)),
    },
    session: {
      // Written by POST /api/workspaces/{id}/activate, read by the workspace resolution.
      additionalFields: { activeWorkspaceId: { type: "string", required: false, input: false } },
    },
    user: {
      changeEmail: {
        enabled: true,
        // A confirmed address confirms the change first; the new address then gets its own link.
        sendChangeEmailConfirmation: async ({ user, newEmail, url }) =>
          options.mailer.send(changeEmailMessage(user.email, newEmail, url)),
      },
      deleteUser: { enabled: true, beforeDelete: async (deleted) => options.beforeDeleteUser(deleted) },
    },
    databaseHooks: {
      session: { delete: { after: async (deleted) => options.onSessionDeleted(deleted) } },
    },
    plugins: [twoFactorPlugin({ issuer: PRODUCT_NAME })],
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
