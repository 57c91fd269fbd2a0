import { hasUnstorableCharacter } from "@app/core";
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { CommonErrors, type ErrorDetail } from "./errors.ts";
import { issuePath } from "./validation.ts";

/**
 * In JSON text that is valid UTF-8, NUL and lone surrogates can only come from `\u` escapes; a
 * body without one of these escapes needs no walk (a false positive, `\\u0000`, only costs a walk).
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
/**
 * A number JSON.parse cannot carry exactly has 16 digits in a row (an integer past 2^53 − 1 has at
 * least that many) or a 3-digit exponent (past ±1.8e308); a body with neither needs no reviver.
 */
const SUSPECT_NUMBER = /\d{16}|[eE]\+?\d{3}/;
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";
const utf8 = new TextDecoder("utf-8", { fatal: true });
const UNSTORABLE_MESSAGE = "must not contain NUL (U+0000) or an unpaired surrogate (U+D800 to U+DFFF)";

/**
 * Refuses, before any handler sees them, requests whose path, query or body PostgreSQL could not
 * store or that are not UTF-8: invalid UTF-8 answers 400 (`invalid_json` for a JSON body,
 * `invalid_encoding` elsewhere) and NUL or a lone surrogate 422 `validation_failed`, each naming the
 * field (`param`). So does a JSON number that JSON.parse would not carry exactly: one out of range
 * (it would become Infinity, then `null` when written back as JSON) or an integer past
 * ±(2^53 − 1) that a double cannot hold (it would be rounded: 2^53 + 1 becomes 2^53). Register it after the body-size limits, since it reads JSON and form bodies whole;
 * other bodies (uploads) are left to their routes. The decoded text is cached on the request, so
 * the route's own `c.req.json()` reads the same bytes.
 *
 * `isBodyUnbounded` names paths whose bodies no size limit covers (a streamed upload): their
 * bodies are never read here, whatever their content type.
 *
 * @example app.use(limitBody(1 << 20)); app.use(guardInput());
 */
export function guardInput(options: { isBodyUnbounded?: (path: string) => boolean } = {}): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const queryStart = url.indexOf("?", pathStart);
    const rawPath = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
    if (rawPath.includes("%"))
      checkPath(rawPath, () => matchedRoutes(c).find((route) => route.method !== "ALL")?.path ?? "");
    if (queryStart !== -1) checkPairs(url.slice(queryStart + 1), "query");

    const contentType = c.req.header("content-type");
    if (contentType === undefined || c.req.method === "GET" || c.req.method === "HEAD") return next();
    if (options.isBodyUnbounded?.(c.req.path)) return next();
    const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
    const isJson = JSON_MEDIA_TYPE.test(mediaType);
    if (!isJson && mediaType !== FORM_MEDIA_TYPE) return next();

    let text: string;
    try {
      text = utf8.decode(await c.req.raw.arrayBuffer());
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      throw isJson
        ? CommonErrors.INVALID_JSON({ message: "The request body is not valid UTF-8." })
        : CommonErrors.INVALID_ENCODING({ message: "The request body is not valid UTF-8.", param: "body" });
    }
    // Hono keeps each body reading as a promise in `bodyCache` and derives json() and the rest from
    // the first one cached; its type says methods. Every route test reads a body after this line.
    (c.req.bodyCache as Record<string, Promise<unknown>>).text = Promise.resolve(text);
    if (isJson) checkJson(text);
    else checkPairs(text, "body");
    return next();
  };
}

function invalidInput(where: string, details: ErrorDetail[]) {
  const first = details[0];
  return CommonErrors.VALIDATION_FAILED({
    message: `Invalid ${where}. ${first?.path ? `${first.path}: ` : ""}${first?.message ?? UNSTORABLE_MESSAGE}.`,
    details,
    ...(first?.path ? { param: first.path } : {}),
  });
}

/** Names a bad path segment after the parameter in that place of the route that will answer (`id`), else `path`. */
function checkPath(rawPath: string, template: () => string): void {
  const segments = rawPath.split("/");
  for (const [index, segment] of segments.entries()) {
    if (!segment.includes("%")) continue;
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      decoded = undefined;
    }
    if (decoded !== undefined && !hasUnstorableCharacter(decoded)) continue;
    const placeholder = template().split("/")[index] ?? "";
    const name = placeholder.startsWith(":") ? placeholder.slice(1).replace(/\{.*$/, "") : "path";
    if (decoded === undefined) {
      throw CommonErrors.INVALID_ENCODING({
        message: `Invalid path. ${name}: the percent-encoding is not UTF-8.`,
        param: name,
      });
    }
    throw invalidInput("path", [{ path: name, message: UNSTORABLE_MESSAGE }]);
  }
}

/** Checks `a=1&b=2` pairs (a query string or a form body); a bad value is named after its key. */
function checkPairs(raw: string, where: "query" | "body"): void {
  if (!raw.includes("%")) return;
  for (const pair of raw.split("&")) {
    if (!pair.includes("%")) continue;
    const equals = pair.indexOf("=");
    const rawKey = equals === -1 ? pair : pair.slice(0, equals);
    const key = decodeOrUndefined(rawKey);
    const value = equals === -1 ? "" : decodeOrUndefined(pair.slice(equals + 1));
    const name = key === undefined || hasUnstorableCharacter(key) ? where : key;
    if (key === undefined || value === undefined) {
      throw CommonErrors.INVALID_ENCODING({
        message: `Invalid ${where}. ${name}: the percent-encoding is not UTF-8.`,
        param: name,
      });
    }
    if (hasUnstorableCharacter(key) || hasUnstorableCharacter(value)) {
      throw invalidInput(where, [{ path: name, message: UNSTORABLE_MESSAGE }]);
    }
  }
}

function decodeOrUndefined(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/** A number of the body that JSON.parse would not carry exactly, and why. */
class InexactNumber {
  constructor(readonly message: string) {}
}

/**
 * JSON.parse's reviver: a number token whose value is not exactly what it says becomes an
 * `InexactNumber` (the source text is the reviver's third argument since Node 21). Only integers
 * are held to exactness: a fraction is approximate by nature. What JSON.stringify writes always
 * reads back exactly, so no JavaScript client is refused (1e20 written out in digits passes).
 */
function markInexactNumber(_key: string, value: unknown, context?: { source?: string }): unknown {
  const source = context?.source;
  if (typeof value !== "number" || source === undefined) return value;
  const shown = source.length > 40 ? `${source.slice(0, 40)}… (${source.length} characters)` : source;
  if (!Number.isFinite(value)) {
    return new InexactNumber(`${shown} is out of range: a JSON number must lie within ±${Number.MAX_VALUE}`);
  }
  if (!Number.isSafeInteger(value) && /^-?\d+$/.test(source) && BigInt(source) !== BigInt(value)) {
    return new InexactNumber(
      `${shown} is an integer a JSON number cannot carry exactly (it would become ${value}); integers are exact up to ±${Number.MAX_SAFE_INTEGER} (2^53 − 1)`,
    );
  }
  return value;
}

/** Walks a JSON body iteratively (a deeply nested body cannot overflow the stack), naming every bad field. */
function checkJson(text: string): void {
  const hasSuspectNumber = SUSPECT_NUMBER.test(text);
  if (!hasSuspectNumber && !SUSPECT_ESCAPE.test(text)) return;
  let root: unknown;
  try {
    root = hasSuspectNumber ? JSON.parse(text, markInexactNumber) : JSON.parse(text);
  } catch {
    return; // the route's validator answers 400 invalid_json
  }
  const details: ErrorDetail[] = [];
  // Each entry points at its parent instead of copying the path, so depth costs nothing until a report.
  type Entry = { value: unknown; key: PropertyKey | undefined; parent: Entry | undefined };
  const pathOf = (entry: Entry | undefined) => {
    const path: PropertyKey[] = [];
    for (let at = entry; at && at.key !== undefined; at = at.parent) path.push(at.key);
    return issuePath(path.reverse());
  };
  const stack: Entry[] = [{ value: root, key: undefined, parent: undefined }];
  while (stack.length > 0 && details.length < 20) {
    const entry = stack.pop() as Entry;
    const { value } = entry;
    if (typeof value === "string") {
      if (hasUnstorableCharacter(value)) details.push({ path: pathOf(entry), message: UNSTORABLE_MESSAGE });
    } else if (value instanceof InexactNumber) {
      details.push({ path: pathOf(entry) || "body", message: value.message });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: entry });
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        if (hasUnstorableCharacter(key)) {
          details.push({ path: pathOf(entry) || "body", message: `a key ${UNSTORABLE_MESSAGE}` });
          continue;
        }
        stack.push({ value: child, key, parent: entry });
      }
    }
  }
  if (details.length > 0) throw invalidInput("body", details);
}
