import { newId } from "@app/core";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { ApiError, CommonErrors } from "./errors.ts";
import type { Logger } from "./logger.ts";
import { validationHook } from "./validation.ts";

/** Variables every request carries; apps extend this with their own. */
export interface BaseVariables {
  requestId: string;
}

export type BaseEnv = { Variables: BaseVariables };

const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Gives every request an id (a caller's well-formed `Request-Id` is kept) and echoes it back.
 *
 * @example app.use(requestId())
 */
export function requestId(): MiddlewareHandler<BaseEnv> {
  return async (c, next) => {
    const incoming = c.req.header("request-id");
    const id = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : newId("req");
    c.set("requestId", id);
    c.header("Request-Id", id);
    await next();
    // An event stream wrote its headers itself, and this marker response is shared.
    if (c.res !== RESPONSE_ALREADY_SENT) c.res.headers.set("Request-Id", id);
  };
}

/**
 * One log line per request with its id, method, matched route, status and duration.
 * The raw path is left out because some paths carry secrets (trigger tokens).
 */
export function requestLogger(logger: Logger): MiddlewareHandler<BaseEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info(
      {
        request_id: c.get("requestId"),
        method: c.req.method,
        route: c.req.routePath,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
      },
      "request",
    );
  };
}

/**
 * Rejects bodies over `maxBytes` with 413 in the error shape, before they are read whole. A
 * declared Content-Length is checked without touching the body (Node's parser holds the body to
 * it), so the Node adapter keeps its fast path of reading the body straight from the socket;
 * only chunked bodies are counted while they stream.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = () =>
    CommonErrors.BODY_TOO_LARGE({
      message: `The request body is larger than ${Math.floor(maxBytes / 1024)} KiB.`,
      // The rest of the body is never read, so the connection cannot carry another request.
      headers: { Connection: "close" },
    });
  const streamed = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return async (c, next) => {
    const declared = c.req.header("content-length");
    if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    return streamed(c, next);
  };
}

/**
 * Maps anything thrown to the error shape. Unexpected errors are logged with their stack and answered
 * without internals; an outside service's failure (an `ApiError` of 5xx other than 500: 502, 503, 504) is a warning.
 *
 * @example app.onError(errorHandler(logger));
 */
export function errorHandler<E extends BaseEnv>(logger: Logger): ErrorHandler<E> {
  return (error, c) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500 && error instanceof ApiError && apiError.status !== 500) {
      // An outside service failing (a provider unreachable, the sandbox unavailable) is raised on
      // purpose and answered in the error shape: worth a warning, not a stack of our own code.
      const { code, status, message } = apiError;
      logger.warn({ request_id: c.var.requestId, code, status, message }, "outside service failed");
    } else if (apiError.status >= 500) {
      logger.error({ request_id: c.var.requestId, err: error }, "unhandled error");
    }
    return respondWithError(c, apiError);
  };
}

export function respondWithError(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toBody(), error.status);
}

/**
 * What the error handler answers for anything thrown (Hono's own `HTTPException`s included).
 *
 * @example toApiError(c.error).code // "invalid_json" for Hono's malformed-JSON exception
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400 && /json/i.test(error.message)) return CommonErrors.INVALID_JSON();
    if (error.status === 413) return CommonErrors.BODY_TOO_LARGE();
    if (error.status === 415) return CommonErrors.UNSUPPORTED_MEDIA_TYPE();
    if (error.status < 500) return new ApiError(error.status, "bad_request", error.message || "Bad request.");
  }
  return CommonErrors.INTERNAL();
}

const REJECTED_BEFORE_RUNNING: ReadonlySet<string> = new Set([
  CommonErrors.codes.INVALID_JSON,
  CommonErrors.codes.INVALID_ENCODING,
  CommonErrors.codes.VALIDATION_FAILED,
  CommonErrors.codes.BODY_TOO_LARGE,
  CommonErrors.codes.UNSUPPORTED_MEDIA_TYPE,
  CommonErrors.codes.UNAUTHENTICATED,
]);

/**
 * Whether a request ended in an error raised before its handler ran (unreadable or invalid input,
 * no credentials): nothing happened, so the same request may be sent again as if for the first time.
 *
 * @example if (isRejectedBeforeRunning(c.error)) await releaseIdempotencyKey();
 */
export function isRejectedBeforeRunning(error: unknown): boolean {
  return error !== undefined && REJECTED_BEFORE_RUNNING.has(toApiError(error).code);
}

export const notFoundHandler: NotFoundHandler = (c) =>
  respondWithError(
    c,
    CommonErrors.ROUTE_NOT_FOUND({ message: `There is no route ${c.req.method} ${c.req.path}.` }),
  );

/**
 * A Hono app with OpenAPI routes whose request validation answers 422 in the error shape.
 *
 * @example const agents = createRouter<AppEnv>(); agents.openapi(listAgentsRoute, handler);
 */
export function createRouter<E extends Env = BaseEnv>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}
