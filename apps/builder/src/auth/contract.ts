import { errorBodySchema } from "@app/http";
import { z } from "@hono/zod-openapi";

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: "must be an e-mail address" }))
  .openapi({ example: "ada@example.com", format: "email" });

export const signUpBody = z
  .object({
    email,
    password: z.string().min(8, "must be at least 8 characters").max(128),
    name: z.string().trim().min(1).max(100),
  })
  .openapi("SignUpRequest");

export const signInBody = z
  .object({
    email,
    password: z.string().min(1).max(128),
    rememberMe: z.boolean().optional().openapi({ description: "false: the session ends with the browser" }),
  })
  .openapi("SignInRequest");

const newPassword = z.string().min(8, "must be at least 8 characters").max(128);
const currentPassword = z.string().min(1).max(128);
/** Where a link from an e-mail sends the browser afterwards: a path of the studio or a trusted origin's URL. */
const callbackURL = z.string().max(2000).optional().openapi({
  description: "Where the link in the e-mail sends the browser afterwards (a studio path such as /)",
});
const otpCode = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .openapi({ description: "The 6-digit code of the authenticator app, or a backup code", example: "123456" });
const trustDevice = z
  .boolean()
  .optional()
  .openapi({ description: "Skip the second factor on this browser for 30 days" });

export const sendVerificationEmailBody = z
  .object({ email, callbackURL })
  .openapi("SendVerificationEmailRequest");
export const verifyEmailQuery = z.object({
  token: z
    .string()
    .min(1)
    .max(4000)
    .openapi({ param: { name: "token", in: "query" } }),
  callbackURL: z
    .string()
    .max(2000)
    .optional()
    .openapi({ param: { name: "callbackURL", in: "query" } }),
});
export const requestPasswordResetBody = z
  .object({
    email,
    redirectTo: z.string().max(2000).optional().openapi({
      description: "The page that asks for the new password; default: the studio's /reset-password",
    }),
  })
  .openapi("RequestPasswordResetRequest");
export const resetPasswordTokenParams = z.object({
  token: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "token", in: "path" } }),
});
export const resetPasswordCallbackQuery = z.object({
  callbackURL: z
    .string()
    .min(1)
    .max(2000)
    .openapi({ param: { name: "callbackURL", in: "query" } }),
});
export const resetPasswordBody = z
  .object({ newPassword, token: z.string().min(1).max(200) })
  .openapi("ResetPasswordRequest");
export const changePasswordBody = z
  .object({
    currentPassword,
    newPassword,
    revokeOtherSessions: z.boolean().optional().openapi({ description: "Sign out every other session too" }),
  })
  .openapi("ChangePasswordRequest");
export const changeEmailBody = z.object({ newEmail: email, callbackURL }).openapi("ChangeEmailRequest");
export const updateUserBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    image: z.string().max(2000).nullable().optional(),
  })
  .openapi("UpdateUserRequest");
export const revokeSessionBody = z
  .object({ token: z.string().min(1).max(200).openapi({ description: "The `token` of a listed session" }) })
  .openapi("RevokeSessionRequest");
export const deleteUserBody = z
  .object({
    password: currentPassword
      .optional()
      .openapi({ description: "Required unless the session is younger than a day" }),
    callbackURL,
  })
  .openapi("DeleteUserRequest");
export const passwordBody = z.object({ password: currentPassword }).openapi("PasswordRequest");
export const enableTwoFactorBody = z
  .object({ password: currentPassword, issuer: z.string().max(100).optional() })
  .openapi("EnableTwoFactorRequest");
export const verifyTotpBody = z.object({ code: otpCode, trustDevice }).openapi("VerifyTotpRequest");
export const verifyBackupCodeBody = z
  .object({ code: otpCode, trustDevice })
  .openapi("VerifyBackupCodeRequest");

const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    emailVerified: z.boolean(),
    image: z.string().nullable().optional(),
    twoFactorEnabled: z.boolean().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("User");

export const authResult = z
  .object({
    token: z.string().nullable().openapi({
      description:
        "The session token; null when REQUIRE_EMAIL_VERIFICATION holds sign-in until the address is confirmed",
    }),
    user: userSchema,
  })
  .openapi("AuthResult");

/** The answer of a sign-in whose account has two-factor on: no session yet, a second step instead. */
export const twoFactorChallenge = z
  .object({
    twoFactorRedirect: z.literal(true),
    twoFactorMethods: z.array(z.string()).openapi({ example: ["totp"] }),
  })
  .openapi("TwoFactorChallenge");

export const statusResult = z.object({ status: z.boolean() }).openapi("AuthStatus");
export const messageResult = z
  .object({ status: z.boolean(), message: z.string() })
  .openapi("AuthStatusMessage");
export const verifyEmailResult = z
  .object({ status: z.boolean(), user: userSchema.nullable().optional() })
  .openapi("VerifyEmailResult");
export const changePasswordResult = z
  .object({
    token: z
      .string()
      .nullable()
      .openapi({ description: "The new session's token when other sessions were revoked" }),
    user: userSchema,
  })
  .openapi("ChangePasswordResult");
export const deleteUserResult = z
  .object({ success: z.boolean(), message: z.string() })
  .openapi("DeleteUserResult");
export const sessionSchema = z
  .object({
    id: z.string(),
    token: z.string().openapi({ description: "What POST /api/auth/revoke-session takes" }),
    userId: z.string(),
    expiresAt: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    ipAddress: z.string().nullable().optional(),
    userAgent: z.string().nullable().optional(),
  })
  .openapi("Session");
export const sessionList = z.array(sessionSchema).openapi("SessionList");
export const enableTwoFactorResult = z
  .object({
    method: z.string().optional(),
    totpURI: z
      .string()
      .openapi({ description: "otpauth:// URI for the authenticator app (show it as a QR code)" }),
    backupCodes: z
      .array(z.string())
      .openapi({ description: "Single-use codes for when the app is not at hand; shown once" }),
  })
  .openapi("EnableTwoFactorResult");
export const totpUriResult = z.object({ totpURI: z.string() }).openapi("TotpUriResult");
export const backupCodesResult = z
  .object({ status: z.boolean(), backupCodes: z.array(z.string()) })
  .openapi("BackupCodesResult");
export const sessionResult = z
  .object({
    session: z.object({ id: z.string(), userId: z.string(), expiresAt: z.string() }).passthrough(),
    user: userSchema,
  })
  .nullable()
  .openapi("SessionResult");

/**
 * Our error shape plus the top-level `code` and `message` that better-auth's own client
 * (`authClient.signIn.email(…)` → `{ error: { code, message, status } }`) reads from its routes.
 */
export const authErrorBody = errorBodySchema
  .extend({
    code: z
      .string()
      .openapi({ example: "INVALID_EMAIL_OR_PASSWORD", description: "better-auth's error code" }),
    message: z.string(),
  })
  .openapi("AuthError");

export const signOutResult = z.object({ success: z.boolean() });
