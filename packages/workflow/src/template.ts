/** A `{{node_id.field.path[0]}}` reference: `path` starts with the field (`["field", "path", 0]`). */
export interface TemplateReference {
  node_id: string;
  path: readonly (string | number)[];
  /** The reference as written, without braces or surrounding spaces: `node_id.field.path[0]`. */
  source: string;
}

/** A piece of a template string: literal text, a reference, or something that looks like a broken reference. */
export type TemplatePart =
  | { kind: "text"; text: string }
  | { kind: "reference"; reference: TemplateReference }
  | { kind: "malformed"; text: string };

/** Node outputs by node id, as templates see them: `{ start: { question: "hi" } }`. */
export type TemplateScope = Readonly<Record<string, unknown>>;

export interface ResolveOptions {
  /** A path that does not exist throws a `TemplateError` ("error", the default) or resolves empty. */
  missing?: "error" | "empty";
  /**
   * Nodes that legitimately have no outputs (skipped branches): references to them resolve empty
   * even under `missing: "error"`, which is what lets a join read whichever branch ran.
   */
  optionalNodes?: ReadonlySet<string>;
}

/** Raised when a reference names a node or path that has no value under `missing: "error"`. */
export class TemplateError extends Error {
  override name = "TemplateError";
  readonly code = "missing_value";
  readonly reference: TemplateReference;

  constructor(reference: TemplateReference, message: string) {
    super(message);
    this.reference = reference;
  }
}

const CANDIDATE = /\{\{([^{}]*)\}\}/g;
const REFERENCE = /^([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+|\[\d+\])+)$/;
const SEGMENT = /\.([A-Za-z0-9_-]+)|\[(\d+)\]/g;
// A word followed by `.`, `[` or nothing is meant as a reference; `{{ x + y }}` or `{{#each}}` is prose.
const LOOKS_LIKE_REFERENCE = /^[A-Za-z0-9_-]+(?:$|[.[])/;

/**
 * Splits a string into text, references and malformed references.
 *
 * @example parseTemplate("Hi {{start.name}}!") // [text "Hi ", reference start.name, text "!"]
 */
export function parseTemplate(text: string): TemplatePart[] {
  return [...parsedParts(text)];
}

// Graphs are run many times with the same strings; parsing each once keeps resolution cheap. The
// cache is cleared when full rather than tracked as an LRU (the working set is the stored graphs), and
// long texts such as prompts are not kept, so it stays within a few megabytes.
const parsedCache = new Map<string, readonly TemplatePart[]>();
const MAX_CACHED_TEMPLATES = 5_000;
const MAX_CACHED_LENGTH = 500;

function parsedParts(text: string): readonly TemplatePart[] {
  const cached = parsedCache.get(text);
  if (cached !== undefined) return cached;
  const parts = Object.freeze(splitTemplate(text).map((part) => Object.freeze(part)));
  if (text.length > MAX_CACHED_LENGTH) return parts;
  if (parsedCache.size >= MAX_CACHED_TEMPLATES) parsedCache.clear();
  parsedCache.set(text, parts);
  return parts;
}

function splitTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of text.matchAll(CANDIDATE)) {
    const inner = (match[1] ?? "").trim();
    const reference = parseReference(inner);
    if (reference === undefined && !LOOKS_LIKE_REFERENCE.test(inner)) continue;
    if (match.index > last) parts.push({ kind: "text", text: text.slice(last, match.index) });
    parts.push(reference ? { kind: "reference", reference } : { kind: "malformed", text: match[0] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}

/**
 * Parses the inside of `{{ }}`; undefined unless it is `node_id.field` followed by `.key` or `[index]` parts.
 *
 * @example parseReference("llm_1.json.items[0]") // { node_id: "llm_1", path: ["json", "items", 0], … }
 */
export function parseReference(source: string): TemplateReference | undefined {
  const match = REFERENCE.exec(source);
  if (!match?.[1] || !match[2]?.startsWith(".")) return undefined;
  const path: (string | number)[] = [];
  for (const segment of match[2].matchAll(SEGMENT)) {
    path.push(segment[1] === undefined ? Number(segment[2]) : segment[1]);
  }
  return Object.freeze({ node_id: match[1], path: Object.freeze(path), source });
}

/**
 * Resolves templates in a string, array or object, deeply. A string that is exactly one template keeps
 * the referenced value's type; a string mixing text and templates becomes a string.
 *
 * @example resolveTemplates({ n: "{{start.n}}", s: "n={{start.n}}" }, { start: { n: 2 } }) // { n: 2, s: "n=2" }
 */
export function resolveTemplates(
  value: unknown,
  scope: TemplateScope,
  options: ResolveOptions = {},
): unknown {
  if (typeof value === "string") return resolveString(value, scope, options);
  if (Array.isArray(value)) return value.map((item) => resolveTemplates(item, scope, options));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveTemplates(item, scope, options);
    return out;
  }
  return value;
}

/**
 * Resolves templates in a string and always answers a string (objects become JSON), for fields such as
 * prompts and URLs that must stay text.
 *
 * @example resolveTemplateText("{{start.n}}", { start: { n: 2 } }) // "2"
 */
export function resolveTemplateText(
  text: string,
  scope: TemplateScope,
  options: ResolveOptions = {},
): string {
  if (!text.includes("{{")) return text;
  let out = "";
  for (const part of parsedParts(text)) {
    if (part.kind === "reference") out += stringifyValue(lookup(part.reference, scope, options));
    else out += part.text;
  }
  return out;
}

/**
 * How a value reads inside text: strings as they are, null and missing values as "", objects as JSON.
 *
 * @example stringifyValue({ a: 1 }) // '{"a":1}'
 */
export function stringifyValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value) ?? "";
}

function resolveString(text: string, scope: TemplateScope, options: ResolveOptions): unknown {
  if (!text.includes("{{")) return text;
  const parts = parsedParts(text);
  const only = parts[0];
  if (parts.length === 1 && only?.kind === "reference") {
    const value = lookup(only.reference, scope, options);
    return value === undefined ? null : value;
  }
  return resolveTemplateText(text, scope, options);
}

function lookup(reference: TemplateReference, scope: TemplateScope, options: ResolveOptions): unknown {
  const isOptional = options.missing === "empty" || options.optionalNodes?.has(reference.node_id) === true;
  if (!Object.hasOwn(scope, reference.node_id)) {
    if (isOptional) return undefined;
    throw new TemplateError(reference, `{{${reference.source}}}: node ${reference.node_id} has no outputs`);
  }
  let current: unknown = scope[reference.node_id];
  for (const [index, segment] of reference.path.entries()) {
    const next = step(current, segment);
    if (next.found) {
      current = next.value;
      continue;
    }
    if (options.missing === "empty") return undefined;
    const at = formatSegments(reference.path.slice(0, index + 1));
    throw new TemplateError(reference, `{{${reference.source}}}: ${reference.node_id} has no value at ${at}`);
  }
  return current;
}

// Own properties only: `{{start.name.constructor}}` must not reach into prototypes.
function step(
  current: unknown,
  segment: string | number,
): { found: true; value: unknown } | { found: false } {
  if (typeof segment === "number") {
    if (!Array.isArray(current) || segment >= current.length) return { found: false };
    return { found: true, value: current[segment] };
  }
  if (current === null || typeof current !== "object" || Array.isArray(current)) return { found: false };
  if (!Object.hasOwn(current, segment)) return { found: false };
  return { found: true, value: (current as Record<string, unknown>)[segment] };
}

function formatSegments(path: readonly (string | number)[]): string {
  let out = "";
  for (const segment of path)
    out += typeof segment === "number" ? `[${segment}]` : out ? `.${segment}` : segment;
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
