/**
 * NUL (PostgreSQL text and JSON cannot hold it) or a UTF-16 surrogate without its pair (not a
 * Unicode character: PostgreSQL's JSON refuses it and UTF-8 cannot encode it).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const UNSTORABLE_ALL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether a string holds a character PostgreSQL cannot store. */
export function hasUnstorableCharacter(text: string): boolean {
  return UNSTORABLE.test(text);
}

/**
 * The one rule for text produced at run time (sandbox output, HTTP responses, model output,
 * extracted documents) that PostgreSQL cannot store: each NUL and each unpaired surrogate becomes
 * U+FFFD, the replacement character, as a UTF-8 decoder does with bytes it cannot read. Everything
 * else is kept, so the record stays readable and a run is always recorded.
 *
 * @example toStorableText("a\u0000b") // "a\uFFFDb"
 */
export function toStorableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, "\uFFFD") : text;
}

/**
 * `toStorableText` applied to every string of a JSON-like value, object keys included. Answers the
 * value itself when nothing needed replacing, so the common case allocates nothing.
 *
 * @example toStorable({ out: "a\u0000b" }) // { out: "a\uFFFDb" }
 */
export function toStorable<T>(value: T): T {
  return (needsReplacing(value, 0) ? replaceDeep(value, 0) : value) as T;
}

// Deeper values than this are left as they are: JSON from our own code is nowhere near it, and a
// hostile depth must not overflow the stack (the database refuses such a value on its own).
const MAX_DEPTH = 256;

function needsReplacing(value: unknown, depth: number): boolean {
  if (typeof value === "string") return UNSTORABLE.test(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => needsReplacing(item, depth + 1));
  if (!isPlainObject(value)) return false;
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key) || needsReplacing(item, depth + 1)) return true;
  }
  return false;
}

/** Dates, byte arrays and class instances are not JSON-like text: they are left as they are. */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function replaceDeep(value: unknown, depth: number): unknown {
  if (typeof value === "string") return toStorableText(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => replaceDeep(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[toStorableText(key)] = replaceDeep(item, depth + 1);
  return out;
}

/**
 * `JSON.stringify` of a value bound for a jsonb column, with `toStorable` applied. Lone surrogates
 * and NUL come out of `JSON.stringify` as `\u` escapes, so a text without one needed no change.
 *
 * @example sql`${storableJson(record)}::jsonb`
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  return SUSPECT_ESCAPE.test(text) ? JSON.stringify(toStorable(value)) : text;
}

const SUSPECT_ESCAPE = /\\u(?:0000|d[89a-f])/;
