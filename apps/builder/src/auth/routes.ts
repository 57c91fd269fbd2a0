import { ApiError, createRouter, type ErrorBody, errorResponses, jsonContent, toApiError } from "@app/http";
import { getConnInfo } from "@hono/node-server/conninfo";
import { createRoute } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { type Auth, CLIENT_IP_HEADER } from "./auth.ts";
import {
  authErrorBody,
  authResult,
  sessionResult,
  signInBody,
  signOutResult,
  signUpBody,
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
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: signInBody } } } },
  responses: {
    200: { description: "Signed in (session cookie set)", content: jsonContent(authResult) },
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

/**
 * The four better-auth routes we expose, validated and documented by us and then handed to
 * better-auth; its error answers are translated into our error shape.
 */
export function authRoutes(auth: Auth, principals: PrincipalCache) {
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
  if (response.ok) return response;
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
  if (code.includes("ORIGIN")) return AuthErrors.ORIGIN_NOT_ALLOWED();
  const status = response.status === 400 ? 422 : response.status;
  return new ApiError(
    status as 401 | 403 | 404 | 422 | 500,
    code.toLowerCase() || "auth_error",
    message ?? "Authentication failed.",
  );
}
