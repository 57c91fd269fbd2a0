import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The `type` of an error body, derived from its status the way Stripe groups errors. */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found"
  | "conflict"
  | "rate_limit_error"
  | "api_error";

/** One offending field; features may name more precisely what is at fault (a graph's node or edge). */
export interface ErrorDetail {
  path: string;
  message: string;
  code?: string;
  node_id?: string;
  edge_id?: string;
}

/** The one error body of both services: `{ error: { type, code, message, param?, details? } }`. */
export interface ErrorBody {
  error: {
    type: ErrorType;
    code: string;
    message: string;
    param?: string;
    details?: ErrorDetail[];
  };
}

/**
 * The only error type handlers throw; `errorHandler` turns it into the JSON body.
 *
 * @example throw new ApiError(404, "agent_not_found", "No agent with id agt_1.");
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    extra: { param?: string; details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.param = extra.param;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }

  toBody(): ErrorBody {
    return {
      error: {
        type: errorTypeFor(this.status),
        code: this.code,
        message: this.message,
        ...(this.param === undefined ? {} : { param: this.param }),
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export function errorTypeFor(status: number): ErrorType {
  if (status === 401 || status === 403) return "authentication_error";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

type ErrorExtra = {
  message?: string;
  param?: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
};
type Catalogue = Record<string, { status: ContentfulStatusCode; message: string }>;
type SnakeCase<S extends string> = Lowercase<S>;

/**
 * A feature's error catalogue: UPPER_SNAKE names with their status and message, defined once.
 * Each entry becomes a factory of `ApiError` whose body code is the lower snake name.
 *
 * @example
 * export const AgentErrors = defineErrors({ AGENT_NOT_FOUND: { status: 404, message: "No such agent." } });
 * throw AgentErrors.AGENT_NOT_FOUND();
 */
export function defineErrors<const C extends Catalogue>(
  catalogue: C,
): { [K in keyof C & string]: (extra?: ErrorExtra) => ApiError } & {
  codes: { [K in keyof C & string]: SnakeCase<K> };
} {
  const factories: Record<string, unknown> = {};
  const codes: Record<string, string> = {};
  for (const [name, entry] of Object.entries(catalogue)) {
    const code = name.toLowerCase();
    codes[name] = code;
    factories[name] = (extra: ErrorExtra = {}) =>
      new ApiError(entry.status, code, extra.message ?? entry.message, extra);
  }
  factories.codes = codes;
  return factories as never;
}

/** Errors every route may answer with. */
export const CommonErrors = defineErrors({
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  INVALID_ENCODING: { status: 400, message: "The request is not valid UTF-8." },
  VALIDATION_FAILED: { status: 422, message: "The request has invalid fields." },
  UNAUTHENTICATED: { status: 401, message: "Sign in, or send an API key as `Authorization: Bearer <key>`." },
  ROUTE_NOT_FOUND: { status: 404, message: "There is no such route." },
  BODY_TOO_LARGE: { status: 413, message: "The request body is too large." },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: "The request body must be JSON (Content-Type: application/json).",
  },
  INTERNAL: {
    status: 500,
    message: "Something went wrong on our side. Quote the Request-Id when reporting it.",
  },
});
