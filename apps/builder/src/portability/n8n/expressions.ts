// n8n's expressions (`={{ $json.name }}`, `{{ $('Webhook').item.json.body.email }}`) as this
// builder's templates (`{{start.name}}`). What reads an item's data translates; anything else (a
// method call, arithmetic, `$now`) has no template counterpart and is kept visibly as text.

/** A path into an n8n item's `json`: keys and array indexes. */
export type ItemPath = (string | number)[];

/** Where an expression reads from: the node's input item, or a named node's item. */
export interface ItemAccess {
  /** The n8n name of the node read; undefined for the node's own input (`$json`, `$input`). */
  node: string | undefined;
  path: ItemPath;
}

const ITEM_OF = String.raw`(?:\.item|\.first\(\s*\)|\.last\(\s*\)|\.all\(\s*\)\[0\]|\.itemMatching\(\s*0\s*\))`;
const QUOTED = String.raw`(['"\x60])((?:(?!\1).)+)\1`;

/** The beginnings of an item access, each with the node it names (group `name`), if any. */
const HEADS: { pattern: RegExp; nameGroup?: number }[] = [
  { pattern: /^\$json/ },
  { pattern: new RegExp(String.raw`^\$input${ITEM_OF}\.json`) },
  { pattern: new RegExp(String.raw`^\$\(\s*${QUOTED}\s*\)${ITEM_OF}\.json`), nameGroup: 2 },
  { pattern: new RegExp(String.raw`^\$node\[\s*${QUOTED}\s*\]\.json`), nameGroup: 2 },
  { pattern: /^\$node\.([A-Za-z_$][\w$]*)\.json/, nameGroup: 1 },
  { pattern: new RegExp(String.raw`^\$items\(\s*${QUOTED}\s*\)\[0\]\.json`), nameGroup: 2 },
];

const SEGMENT = /^(?:\??\.([A-Za-z_$][\w$]*)|\[\s*(\d+)\s*\]|\[\s*(['"])((?:(?!\3).)*)\3\s*\])/;

/**
 * The item access an expression is, or undefined when it is anything more (a call, an operator…).
 *
 * @example parseItemAccess("$json.body['email']") // { node: undefined, path: ["body", "email"] }
 */
export function parseItemAccess(expression: string): ItemAccess | undefined {
  let rest = expression.trim().replace(/;$/, "").trim();
  let node: string | undefined;
  let matched = false;
  for (const head of HEADS) {
    const found = head.pattern.exec(rest);
    if (!found) continue;
    node = head.nameGroup === undefined ? undefined : found[head.nameGroup];
    rest = rest.slice(found[0].length);
    matched = true;
    break;
  }
  if (!matched) return undefined;
  const path: ItemPath = [];
  while (rest.length > 0) {
    const segment = SEGMENT.exec(rest);
    if (!segment) return undefined;
    if (segment[1] !== undefined) path.push(segment[1]);
    else if (segment[2] !== undefined) path.push(Number(segment[2]));
    else path.push(segment[4] ?? "");
    rest = rest.slice(segment[0].length).trimStart();
  }
  return { node, path };
}

/** A piece of an n8n parameter: literal text, or the JavaScript inside `{{ }}`. */
type Piece = { kind: "text"; text: string } | { kind: "expression"; code: string };

/**
 * Splits an n8n expression (without its leading `=`) into text and `{{ … }}` parts; braces and
 * quotes inside the JavaScript are followed, so `{{ { a: 1 } }}` is one part.
 *
 * @example splitExpression("Hi {{ $json.name }}!") // [text "Hi ", expression " $json.name ", text "!"]
 */
export function splitExpression(text: string): Piece[] {
  const pieces: Piece[] = [];
  let index = 0;
  let literal = "";
  while (index < text.length) {
    const open = text.indexOf("{{", index);
    if (open === -1) break;
    const close = closingBraces(text, open + 2);
    if (close === -1) break;
    literal += text.slice(index, open);
    if (literal) pieces.push({ kind: "text", text: literal });
    literal = "";
    pieces.push({ kind: "expression", code: text.slice(open + 2, close) });
    index = close + 2;
  }
  literal += text.slice(index);
  if (literal) pieces.push({ kind: "text", text: literal });
  return pieces;
}

/** The index of the `}}` closing an expression that starts at `from`, or -1. */
function closingBraces(text: string, from: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "{") depth++;
    else if (char === "}") {
      if (depth === 0 && text[i + 1] === "}") return i;
      depth = Math.max(0, depth - 1);
    }
  }
  return -1;
}

/** Whether an n8n parameter value is an expression (n8n marks them with a leading `=`). */
export const isExpression = (value: unknown): value is `=${string}` =>
  typeof value === "string" && value.startsWith("=");

/** What translating needs from the conversion: the template reference of an item access. */
export interface Translator {
  /** `node.field.path` for an access, or undefined (with the reason) when it has no counterpart. */
  reference(access: ItemAccess, hint?: ValueHint): string | { problem: string };
  warn(message: string): void;
}

/** The type an expression's value is compared as, for a Start input it creates. */
export type ValueHint = "string" | "number" | "boolean";

/** The text an untranslatable expression is kept as, visible in the editor and harmless when run. */
export const keptExpression = (code: string) => `[n8n expression: ${code.trim()}]`;

/**
 * An n8n parameter as a template string: literals as they are, expressions' item accesses as
 * references, anything else kept as `[n8n expression: …]` with a warning.
 *
 * @example translateText("=Hello {{ $json.body.name }}", translator) // "Hello {{start.name}}"
 */
export function translateText(value: string, translator: Translator, hint?: ValueHint): string {
  if (!isExpression(value)) return value;
  let out = "";
  for (const piece of splitExpression(value.slice(1))) {
    if (piece.kind === "text") {
      out += piece.text;
      continue;
    }
    out += translateCode(piece.code, translator, hint);
  }
  return out;
}

/** One expression's JavaScript as a `{{reference}}`, or kept as text with a warning. */
export function translateCode(code: string, translator: Translator, hint?: ValueHint): string {
  const access = parseItemAccess(code);
  if (!access) {
    translator.warn(
      `the expression {{${code}}} has no counterpart (only reads of an item's data translate): kept as text`,
    );
    return keptExpression(code);
  }
  const reference = translator.reference(access, hint);
  if (typeof reference === "string") return `{{${reference}}}`;
  translator.warn(`the expression {{${code}}} cannot be translated (${reference.problem}): kept as text`);
  return keptExpression(code);
}

/**
 * A parameter of any shape with every expression string in it translated.
 *
 * @example translateDeep({ a: "={{ $json.x }}", b: [1] }, translator) // { a: "{{http_1.json.x}}", b: [1] }
 */
export function translateDeep(value: unknown, translator: Translator): unknown {
  if (typeof value === "string") return translateText(value, translator);
  if (Array.isArray(value)) return value.map((item) => translateDeep(item, translator));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, translateDeep(item, translator)]),
    );
  }
  return value;
}

/**
 * A JSON text holding `{{ }}` expressions (an HTTP Request's JSON body, a Respond to Webhook's
 * body) as a value whose strings hold templates: an expression standing as a whole value becomes a
 * string that is exactly one template (which keeps the referenced value's type when run).
 * Undefined when the text is not JSON once the expressions are set aside.
 *
 * @example translateJson('={ "name": "{{ $json.name }}", "n": {{ $json.n }} }', translator) // { name: "{{…}}", n: "{{…}}" }
 */
export function translateJson(value: string, translator: Translator): unknown {
  const text = isExpression(value) ? value.slice(1) : value;
  const whole = /^\s*\{\{([\s\S]*)\}\}\s*$/.exec(text);
  if (whole?.[1] !== undefined && closingBraces(text.trim(), 2) === text.trim().length - 2) {
    return translateCode(whole[1], translator);
  }
  const codes: string[] = [];
  let json = "";
  let inString = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === "{" && text[index + 1] === "{") {
      const close = closingBraces(text, index + 2);
      if (close === -1) return undefined;
      const token = `\uE000${codes.length}\uE000`;
      codes.push(text.slice(index + 2, close));
      json += inString ? token : JSON.stringify(token);
      index = close + 2;
      continue;
    }
    if (inString && char === "\\") {
      json += char + (text[index + 1] ?? "");
      index += 2;
      continue;
    }
    if (char === '"') inString = !inString;
    json += char;
    index++;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const restore = (item: unknown): unknown => {
    if (typeof item === "string") {
      return item.replace(/\uE000(\d+)\uE000/g, (_, n: string) =>
        translateCode(codes[Number(n)] ?? "", translator),
      );
    }
    if (Array.isArray(item)) return item.map(restore);
    if (typeof item === "object" && item !== null) {
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, restore(entry)]));
    }
    return item;
  };
  return restore(parsed);
}
