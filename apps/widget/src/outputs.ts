// A workflow run's outputs for people: text as (safe) markdown, files as images or download links,
// anything else as formatted JSON. Files are what the builder's nodes produce (a generation's
// `{ url, content_type }`, served at /api/files/{id}); a URL that is not http(s) is shown as text.
import { append, h } from "./dom.ts";
import { renderMarkdown, safeHref, safeLink } from "./markdown.ts";

interface FileReference {
  url: string;
  content_type: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFile(value: unknown): value is FileReference {
  return isRecord(value) && typeof value.url === "string" && typeof value.content_type === "string";
}

/** Whether `value` holds a file somewhere within a few levels (a generation's `outputs`, a list of them). */
function hasFile(value: unknown, depth = 0): boolean {
  if (isFile(value)) return true;
  if (depth > 3) return false;
  if (Array.isArray(value)) return value.some((item) => hasFile(item, depth + 1));
  return isRecord(value) && Object.values(value).some((item) => hasFile(item, depth + 1));
}

function fileElement(file: FileReference, label: string): Node {
  const href = safeHref(file.url);
  if (!href) return h("pre", {}, JSON.stringify(file, null, 2));
  if (file.content_type.startsWith("image/"))
    return safeLink(href, h("img", { src: href, alt: label, loading: "lazy" }));
  return h("p", {}, safeLink(href, `Download ${label} (${file.content_type})`));
}

/**
 * Renders one output value under its name.
 *
 * @example outputs.append(renderOutput("summary", "**Done**"))
 */
export function renderOutput(name: string, value: unknown): HTMLElement {
  const box = h("section", { className: "output", "data-output": name }, h("h3", {}, name));
  append(box, renderValue(value, name, 0));
  return box;
}

function renderValue(value: unknown, label: string, depth: number): Node {
  if (typeof value === "string") return h("div", { className: "md" }, renderMarkdown(value));
  if (isFile(value)) return fileElement(value, label);
  if (hasFile(value) && depth < 4) {
    // Walk down to the files, naming each part by its key, so images show as images.
    const entries = Array.isArray(value)
      ? value.map((item, index) => [`${label} ${index + 1}`, item] as const)
      : Object.entries(value as Record<string, unknown>);
    const list = h("div", {});
    for (const [key, item] of entries) {
      if (isFile(item) || hasFile(item)) list.append(renderValue(item, key, depth + 1));
      else if (item !== null && item !== undefined && item !== "")
        list.append(h("p", {}, `${key}: `, typeof item === "string" ? item : JSON.stringify(item)));
    }
    return list;
  }
  if (value === null || value === undefined) return h("p", { className: "status" }, "(empty)");
  if (typeof value === "number" || typeof value === "boolean") return h("p", {}, String(value));
  return h("pre", {}, JSON.stringify(value, null, 2));
}
