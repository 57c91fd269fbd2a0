import { ApiError, createRouter, type ErrorBody, errorResponses, jsonContent, toApiError } from "@app/http";
import { getConnInfo } from "@hono/node-server/conninfo";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { type Auth, CLIENT_IP_HEADER } from "./auth.ts";
import {
  authErrorBody,
  authResult,
  backupCodesResult,
  changeEmailBody,
  changePasswordBody,
  changePasswordResult,
  deleteUserBody,
  deleteUserResult,
  enableTwoFactorBody,
  enableTwoFactorResult,
  messageResult,
  passwordBody,
  requestPasswordResetBody,
  resetPasswordBody,
  resetPasswordCallbackQuery,
  resetPasswordTokenParams,
  revokeSessionBody,
  sendVerificationEmailBody,
  sessionList,
  sessionResult,
  signInBody,
  signOutResult,
  signUpBody,
  statusResult,
  totpUriResult,
  twoFactorChallenge,
  updateUserBody,
  verifyBackupCodeBody,
  verifyEmailQuery,
  verifyEmailResult,
  verifyTotpBody,
} from "./contract.ts";
import { AuthErrors } from "./errors.ts";
import { type PrincipalCache, sessionCredential } from "./principal-cache.ts";
import { sessionCookieValue } from "./require-auth.ts";

const retryHeaders = {
  "Retry-After": { description: "Seconds to wait", schema: { type: "string" as const } },
  "X-Retry-After": {
    description: "The same, where better-auth's client looks",
    schema: { type: "string" as const },
  },
};

/** `errorResponses` for better-auth's routes: the body is `AuthError`, and 429 names its retry headers. */
function authErrorResponses(...statuses: number[]) {
  const out: Record<
    number,
    {
      description: string;
      headers?: typeof retryHeaders;
      content: { "application/json": { schema: typeof authErrorBody } };
    }
  > = {};
  for (const [status, entry] of Object.entries(errorResponses(...statuses))) {
    out[Number(status)] = {
      description: entry.description,
      ...(status === "429" ? { headers: retryHeaders } : {}),
      content: { "application/json": { schema: authErrorBody } },
    };
  }
  return out;
}

/** better-auth's own code for the errors we translated from its answers, for the top-level `code`. */
const betterAuthCodes = new WeakMap<ApiError, string>();

/**
 * Adds better-auth's top-level `code` (its UPPER_SNAKE code, or ours in upper case) and `message`
 * to every error answered on its routes, whichever layer raised it (input guard, validation, the
 * forwarded handler). Register it before anything else that may refuse an auth request.
 *
 * @example app.use("/api/auth/*", betterAuthErrorFields());
 */
export function betterAuthErrorFields(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status < 400 || !c.res.headers.get("content-type")?.includes("json")) return;
    const body = (await c.res.clone().json()) as ErrorBody;
    if (typeof body?.error?.code !== "string") return;
    const thrown = c.error === undefined ? undefined : toApiError(c.error);
    const code = (thrown && betterAuthCodes.get(thrown)) ?? body.error.code.toUpperCase();
    const headers = new Headers(c.res.headers);
    headers.delete("content-length");
    c.res = new Response(JSON.stringify({ ...body, code, message: body.error.message }), {
      status: c.res.status,
      headers,
    });
  };
}

const signUpRoute = createRoute({
  method: "post",
  path: "/sign-up/email",
  tags: ["auth"],
  summary: "Register a new user with e-mail and password",
  description:
    "Sends the address a verification e-mail. With REQUIRE_EMAIL_VERIFICATION the answer has no session (`token: null`) until the address is confirmed, and an address already registered answers the same way instead of 409, so sign-up does not tell who has an account.",
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: signUpBody } } } },
  responses: {
    200: { description: "Registered and signed in (session cookie set)", content: jsonContent(authResult) },
    ...authErrorResponses(400, 409, 413, 415, 422, 429),
  },
});

const signInRoute = createRoute({
  method: "post",
  path: "/sign-in/email",
  tags: ["auth"],
  summary: "Log in with e-mail and password",
  description:
    "An account with two-factor on answers `twoFactorRedirect` and a short-lived two-factor cookie instead of a session: finish with POST /api/auth/two-factor/verify-totp or /two-factor/verify-backup-code. With REQUIRE_EMAIL_VERIFICATION an unconfirmed address answers 403 `email_not_verified` and is sent a new link.",
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: signInBody } } } },
  responses: {
    200: {
      description: "Signed in (session cookie set), or the second factor is needed",
      content: jsonContent(z.union([authResult, twoFactorChallenge])),
    },
    ...authErrorResponses(400, 401, 403, 413, 415, 422, 429),
  },
});

const signOutRoute = createRoute({
  method: "post",
  path: "/sign-out",
  tags: ["auth"],
  summary: "End the current session",
  security: [{ cookieAuth: [] }],
  responses: {
    200: { description: "Signed out", content: jsonContent(signOutResult) },
    ...authErrorResponses(403),
  },
});

const getSessionRoute = createRoute({
  method: "get",
  path: "/get-session",
  tags: ["auth"],
  summary: "The current session and user, or null",
  security: [{ cookieAuth: [] }],
  responses: {
    200: { description: "The session, or null when signed out", content: jsonContent(sessionResult) },
    ...authErrorResponses(),
  },
});

const redirect = {
  description: "Redirect to the callback URL (with `?error=…` when the link is invalid or expired)",
  headers: { Location: { description: "Where the browser goes next", schema: { type: "string" as const } } },
};

/** A better-auth route that takes a JSON body, documented by us and forwarded as it is. */
function bodyRoute<Body extends z.ZodType, Result extends z.ZodType>(spec: {
  path: string;
  summary: string;
  description?: string;
  isSignedIn: boolean;
  body: Body;
  result: Result;
  statuses: number[];
}) {
  return createRoute({
    method: "post",
    path: spec.path,
    tags: ["auth"],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: spec.isSignedIn ? [{ cookieAuth: [] }] : [],
    request: { body: { required: true, content: { "application/json": { schema: spec.body } } } },
    responses: {
      200: { description: "Done", content: jsonContent(spec.result) },
      ...authErrorResponses(...spec.statuses),
    },
  });
}

const signedInErrors = [401, 403, 413, 415, 422, 429];

const accountRoutes = {
  sendVerificationEmail: bodyRoute({
    path: "/send-verification-email",
    summary: "Send the e-mail that confirms the address again",
    description: "Answers the same whether or not the address has an unconfirmed account.",
    isSignedIn: false,
    body: sendVerificationEmailBody,
    result: statusResult,
    statuses: [400, 403, 413, 415, 422, 429],
  }),
  requestPasswordReset: bodyRoute({
    path: "/request-password-reset",
    summary: "E-mail a password-reset link (valid for an hour, once)",
    description:
      "Answers the same whether or not the address has an account. The link opens GET /api/auth/reset-password/{token}, which sends the browser to `redirectTo` with the token.",
    isSignedIn: false,
    body: requestPasswordResetBody,
    result: messageResult,
    statuses: [400, 403, 413, 415, 422, 429],
  }),
  resetPassword: bodyRoute({
    path: "/reset-password",
    summary: "Set a new password with the token of a reset link; every session of the account ends",
    isSignedIn: false,
    body: resetPasswordBody,
    result: statusResult,
    statuses: [400, 403, 413, 415, 422, 429],
  }),
  changePassword: bodyRoute({
    path: "/change-password",
    summary: "Change the password (the current one is needed)",
    isSignedIn: true,
    body: changePasswordBody,
    result: changePasswordResult,
    statuses: signedInErrors,
  }),
  changeEmail: bodyRoute({
    path: "/change-email",
    summary: "Change the e-mail address, confirmed by e-mail",
    description:
      "A confirmed address is first asked to confirm the change; then the new address gets a link that makes the change. An unconfirmed one gets that link at once.",
    isSignedIn: true,
    body: changeEmailBody,
    result: statusResult,
    statuses: signedInErrors,
  }),
  updateUser: bodyRoute({
    path: "/update-user",
    summary: "Change the name or picture",
    isSignedIn: true,
    body: updateUserBody,
    result: statusResult,
    statuses: signedInErrors,
  }),
  revokeSession: bodyRoute({
    path: "/revoke-session",
    summary: "Sign out one of one's sessions",
    isSignedIn: true,
    body: revokeSessionBody,
    result: statusResult,
    statuses: signedInErrors,
  }),
  deleteUser: bodyRoute({
    path: "/delete-user",
    summary: "Delete one's account",
    description:
      "Deletes the account and every workspace it owns alone (the personal one among them, with all their data); memberships of other workspaces end. A workspace it owns that has other members must first be handed over (POST /api/workspaces/{id}/transfer): until then this answers 409 `workspace_has_members`.",
    isSignedIn: true,
    body: deleteUserBody,
    result: deleteUserResult,
    statuses: [401, 403, 409, 413, 415, 422, 429],
  }),
  enableTwoFactor: bodyRoute({
    path: "/two-factor/enable",
    summary: "Start two-factor (TOTP): the authenticator URI and backup codes",
    description:
      "Two-factor is on once POST /api/auth/two-factor/verify-totp accepts a first code from the app.",
    isSignedIn: true,
    body: enableTwoFactorBody,
    result: enableTwoFactorResult,
    statuses: signedInErrors,
  }),
  disableTwoFactor: bodyRoute({
    path: "/two-factor/disable",
    summary: "Turn two-factor off",
    isSignedIn: true,
    body: passwordBody,
    result: statusResult,
    statuses: signedInErrors,
  }),
  getTotpUri: bodyRoute({
    path: "/two-factor/get-totp-uri",
    summary: "The authenticator URI again",
    isSignedIn: true,
    body: passwordBody,
    result: totpUriResult,
    statuses: signedInErrors,
  }),
  generateBackupCodes: bodyRoute({
    path: "/two-factor/generate-backup-codes",
    summary: "Replace the backup codes",
    isSignedIn: true,
    body: passwordBody,
    result: backupCodesResult,
    statuses: signedInErrors,
  }),
  verifyTotp: bodyRoute({
    path: "/two-factor/verify-totp",
    summary: "Finish a sign-in (or turn two-factor on) with a code from the authenticator app",
    description: "Takes the two-factor cookie of the sign-in, or the session while turning two-factor on.",
    isSignedIn: false,
    body: verifyTotpBody,
    result: authResult,
    statuses: [400, 401, 403, 413, 415, 422, 429],
  }),
  verifyBackupCode: bodyRoute({
    path: "/two-factor/verify-backup-code",
    summary: "Finish a sign-in with a backup code (each works once)",
    isSignedIn: false,
    body: verifyBackupCodeBody,
    result: authResult,
    statuses: [400, 401, 403, 413, 415, 422, 429],
  }),
};

const verifyEmailRoute = createRoute({
  method: "get",
  path: "/verify-email",
  tags: ["auth"],
  summary: "Confirm an address (the link of a verification or e-mail-change e-mail)",
  description: "Signs the person in when they were not. With `callbackURL` the browser is sent there.",
  security: [],
  request: { query: verifyEmailQuery },
  responses: {
    200: { description: "Confirmed", content: jsonContent(verifyEmailResult) },
    302: redirect,
    ...authErrorResponses(400, 401, 403, 422, 429),
  },
});

const resetPasswordCallbackRoute = createRoute({
  method: "get",
  path: "/reset-password/{token}",
  tags: ["auth"],
  summary:
    "The link of a password-reset e-mail: sends the browser to the page that asks for the new password",
  security: [],
  request: { params: resetPasswordTokenParams, query: resetPasswordCallbackQuery },
  responses: { 302: redirect, ...authErrorResponses(400, 403, 422, 429) },
});

const listSessionsRoute = createRoute({
  method: "get",
  path: "/list-sessions",
  tags: ["auth"],
  summary: "One's active sessions",
  security: [{ cookieAuth: [] }],
  responses: {
    200: { description: "The sessions", content: jsonContent(sessionList) },
    ...authErrorResponses(401, 403, 429),
  },
});

function bodylessRoute(path: string, summary: string) {
  return createRoute({
    method: "post",
    path,
    tags: ["auth"],
    summary,
    security: [{ cookieAuth: [] }],
    responses: {
      200: { description: "Done", content: jsonContent(statusResult) },
      ...authErrorResponses(401, 403, 429),
    },
  });
}

const revokeSessionsRoute = bodylessRoute("/revoke-sessions", "Sign out every session, this one included");
const revokeOtherSessionsRoute = bodylessRoute(
  "/revoke-other-sessions",
  "Sign out every session but this one",
);

/**
 * better-auth's routes we expose (e-mail sign-up and sign-in, sessions, verification, password reset,
 * e-mail change, account deletion, two-factor), each validated and documented by us and then handed
 * to better-auth at its own path; its error answers are translated into our error shape.
 */
export function authRoutes(auth: Auth, principals: PrincipalCache, publicUrl: string) {
  const router = createRouter<AppEnv>();
  router.openapi(signUpRoute, async (c) => forward(c, auth, c.req.valid("json")));
  router.openapi(signInRoute, async (c) => forward(c, auth, c.req.valid("json")));
  router.openapi(signOutRoute, async (c) => {
    const response = await forward(c, auth, undefined);
    const cookie = sessionCookieValue(c);
    if (cookie) principals.delete(sessionCredential(cookie));
    return response;
  });
  router.openapi(getSessionRoute, async (c) => forward(c, auth, undefined));
  router.openapi(verifyEmailRoute, async (c) => forward(c, auth, undefined));
  router.openapi(resetPasswordCallbackRoute, async (c) => forward(c, auth, undefined));
  router.openapi(listSessionsRoute, async (c) => forward(c, auth, undefined));
  router.openapi(revokeSessionsRoute, async (c) => forward(c, auth, undefined));
  router.openapi(revokeOtherSessionsRoute, async (c) => forward(c, auth, undefined));
  router.openapi(accountRoutes.requestPasswordReset, async (c) => {
    const body = c.req.valid("json");
    // The link in the e-mail ends on the studio's page that asks for the new password.
    return forward(c, auth, { ...body, redirectTo: body.redirectTo ?? `${publicUrl}/reset-password` });
  });
  const forwarded = [
    accountRoutes.sendVerificationEmail,
    accountRoutes.resetPassword,
    accountRoutes.changePassword,
    accountRoutes.changeEmail,
    accountRoutes.updateUser,
    accountRoutes.revokeSession,
    accountRoutes.deleteUser,
    accountRoutes.enableTwoFactor,
    accountRoutes.disableTwoFactor,
    accountRoutes.getTotpUri,
    accountRoutes.generateBackupCodes,
    accountRoutes.verifyTotp,
    accountRoutes.verifyBackupCode,
  ];
  for (const route of forwarded) {
    // biome-ignore lint/suspicious/noExplicitAny: one handler for routes whose bodies differ
    router.openapi(route as any, async (c) => forward(c, auth, c.req.valid("json" as never)));
  }
  return router;
}

// biome-ignore lint/suspicious/noExplicitAny: the typed-response check cannot see through a forwarded Response
async function forward(c: Context<AppEnv>, auth: Auth, body: unknown): Promise<any> {
  const headers = new Headers(c.req.raw.headers);
  headers.delete("content-length");
  headers.set(CLIENT_IP_HEADER, clientAddress(c));
  if (body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(c.req.url, {
    method: c.req.method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const response = await auth.handler(request);
  if (response.ok || (response.status >= 300 && response.status < 400)) return response;
  throw await translateAuthError(response);
}

function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

async function translateAuthError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
  const code = body.code ?? "";
  const error = translated(response, code, body.message);
  if (code !== "") betterAuthCodes.set(error, code);
  return error;
}

function translated(response: Response, code: string, message: string | undefined): ApiError {
  if (response.status === 429) {
    const retryAfter = response.headers.get("x-retry-after") ?? "60";
    return new ApiError(429, AuthErrors.codes.TOO_MANY_ATTEMPTS, AuthErrors.TOO_MANY_ATTEMPTS().message, {
      headers: { "Retry-After": retryAfter, "X-Retry-After": retryAfter },
    });
  }
  if (code.startsWith("USER_ALREADY_EXISTS")) return AuthErrors.EMAIL_TAKEN({ param: "email" });
  if (code === "INVALID_EMAIL_OR_PASSWORD") return AuthErrors.INVALID_CREDENTIALS();
  if (code === "EMAIL_NOT_VERIFIED") return AuthErrors.EMAIL_NOT_VERIFIED();
  if (code.includes("ORIGIN")) return AuthErrors.ORIGIN_NOT_ALLOWED();
  const status = response.status === 400 ? 422 : response.status;
  return new ApiError(
    status as 401 | 403 | 404 | 422 | 500,
    code.toLowerCase() || "auth_error",
    message ?? "Authentication failed.",
  );
}
