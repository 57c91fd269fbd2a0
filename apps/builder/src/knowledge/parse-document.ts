import { Parser } from "htmlparser2";
import Papa from "papaparse";
import { extractText, getDocumentProxy } from "unpdf";
import type { DocumentFormat } from "./formats.ts";

/** A stretch of a document under one heading path (and on one page, for PDFs); chunks never cross it. */
export interface DocumentSection {
  text: string;
  headingPath: string[];
  page: number | null;
}

export interface ParsedDocument {
  sections: DocumentSection[];
  pageCount: number | null;
}

/** The file cannot be turned into text; permanent, so the document is marked `failed` with this message. */
export class DocumentParseError extends Error {
  override name = "DocumentParseError";
}

/**
 * Extracts the text of a file as sections with their heading path (and page for PDFs).
 * PDF through unpdf (PDF.js), DOCX through mammoth (to HTML, so headings survive), HTML without
 * scripts and styles, CSV as one `header: value` line per row, JSON as one `path: value` line per leaf.
 *
 * @example const { sections } = await parseDocument("markdown", bytes);
 */
export async function parseDocument(format: DocumentFormat, bytes: Uint8Array): Promise<ParsedDocument> {
  const parsed = await parseByFormat(format, bytes);
  const sections = parsed.sections
    .map((section) => ({ ...section, text: section.text.replace(/[ \t]+\n/g, "\n").trim() }))
    .filter((section) => section.text.length > 0);
  if (sections.length === 0) throw new DocumentParseError("No text could be extracted from the file.");
  return { sections, pageCount: parsed.pageCount };
}

async function parseByFormat(format: DocumentFormat, bytes: Uint8Array): Promise<ParsedDocument> {
  switch (format) {
    case "pdf":
      return parsePdf(bytes);
    case "docx":
      return parseDocx(bytes);
    case "html":
      return { sections: htmlSections(decodeUtf8(bytes)), pageCount: null };
    case "markdown":
      return { sections: markdownSections(decodeUtf8(bytes)), pageCount: null };
    case "csv":
      return {
        sections: [{ text: csvText(decodeUtf8(bytes)), headingPath: [], page: null }],
        pageCount: null,
      };
    case "json":
      return { sections: jsonSections(decodeUtf8(bytes)), pageCount: null };
    case "text":
      return { sections: [{ text: decodeUtf8(bytes), headingPath: [], page: null }], pageCount: null };
  }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true })
      .decode(bytes)
      .replace(/^\uFEFF/, "")
      .replace(/\r\n?/g, "\n");
  } catch {
    throw new DocumentParseError("The file is not valid UTF-8 text.");
  }
}

async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
  let pages: string[];
  try {
    // PDF.js takes ownership of the buffer it is given, so it gets a copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    const { text } = await extractText(pdf, { mergePages: false });
    pages = text;
  } catch (error) {
    throw new DocumentParseError(`The PDF could not be read: ${messageOf(error)}`);
  }
  return {
    sections: pages.map((text, index) => ({ text, headingPath: [], page: index + 1 })),
    pageCount: pages.length,
  };
}

async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
  let html: string;
  try {
    // Loaded on the first DOCX: mammoth and its XML and zip libraries are about 0.7 MB of JavaScript
    // that a start does not need.
    const { default: mammoth } = await import("mammoth");
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
  } catch (error) {
    throw new DocumentParseError(`The DOCX could not be read: ${messageOf(error)}`);
  }
  return { sections: htmlSections(html), pageCount: null };
}

const SKIPPED_ELEMENTS = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "head",
  "svg",
  "iframe",
  "object",
]);
const BLOCK_ELEMENTS = new Set([
  "p",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "aside",
  "nav",
  "ul",
  "ol",
  "li",
  "table",
  "tr",
  "blockquote",
  "pre",
  "figure",
  "figcaption",
  "dl",
  "dt",
  "dd",
  "hr",
  "form",
]);

/** HTML to text sections split at h1–h6, keeping the heading path; scripts, styles and the head are dropped. */
export function htmlSections(html: string): DocumentSection[] {
  const sections: DocumentSection[] = [];
  let headingPath: string[] = [];
  let text = "";
  let heading: { level: number; text: string } | undefined;
  let skipDepth = 0;

  const flush = () => {
    sections.push({ text, headingPath, page: null });
    text = "";
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED_ELEMENTS.has(name)) skipDepth += 1;
        if (skipDepth > 0) return;
        const level = /^h([1-6])$/.exec(name)?.[1];
        if (level) {
          flush();
          heading = { level: Number(level), text: "" };
        } else if (name === "br") text += "\n";
        else if (name === "td" || name === "th") text += " | ";
        else if (BLOCK_ELEMENTS.has(name)) text += "\n\n";
      },
      ontext(data) {
        if (skipDepth > 0) return;
        if (heading) heading.text += data;
        else text += data.replace(/\s+/g, " ");
      },
      onclosetag(name) {
        if (SKIPPED_ELEMENTS.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (skipDepth > 0) return;
        if (heading && /^h[1-6]$/.test(name)) {
          const title = heading.text.replace(/\s+/g, " ").trim();
          headingPath = [...headingPath.slice(0, heading.level - 1), title].filter((part) => part !== "");
          // The heading starts its section's text too, so a search for the title finds the section.
          text = `${title}\n\n`;
          heading = undefined;
        } else if (BLOCK_ELEMENTS.has(name)) text += "\n\n";
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return sections.map((section) => ({
    ...section,
    text: section.text.replace(/\n[ \t]+/g, "\n").replace(/\n{3,}/g, "\n\n"),
  }));
}

/** Markdown split at ATX headings (`#` … `######`) outside fenced code, each section keeping its heading path. */
export function markdownSections(markdown: string): DocumentSection[] {
  const sections: DocumentSection[] = [];
  let headingPath: string[] = [];
  let lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark && (!fence || fenceMark.startsWith(fence))) fence = fence ? undefined : fenceMark;
    const heading = fence ? undefined : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading?.[1] && heading[2] !== undefined) {
      sections.push({ text: lines.join("\n"), headingPath, page: null });
      headingPath = [...headingPath.slice(0, heading[1].length - 1), heading[2]];
      lines = [line];
    } else lines.push(line);
  }
  sections.push({ text: lines.join("\n"), headingPath, page: null });
  return sections;
}

/** One line per row: `header: value; header: value`, so a chunk of rows keeps its column names. */
function csvText(csv: string): string {
  const result = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: "greedy" });
  const fatal = result.errors.find((error) => error.type === "Delimiter" && result.data.length === 0);
  if (fatal) throw new DocumentParseError(`The CSV could not be read: ${fatal.message}`);
  const headers = result.meta.fields ?? [];
  return result.data
    .map((row) =>
      headers
        .map((header) => [header, (row[header] ?? "").trim()] as const)
        .filter(([, value]) => value !== "")
        .map(([header, value]) => `${header}: ${value}`)
        .join("; "),
    )
    .filter((line) => line !== "")
    .join("\n");
}

/** JSON as `path: value` lines; a top-level array gives one section per element. */
function jsonSections(raw: string): DocumentSection[] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new DocumentParseError(`The JSON could not be read: ${messageOf(error)}`);
  }
  const items = Array.isArray(value)
    ? value.map((item, i) => [`[${i}]`, item] as const)
    : [["", value] as const];
  return items.map(([path, item]) => {
    const lines: string[] = [];
    flattenJson(item, path, lines);
    return { text: lines.join("\n"), headingPath: [], page: null };
  });
}

function flattenJson(value: unknown, path: string, lines: string[]): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) flattenJson(item, `${path}[${i}]`, lines);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) flattenJson(item, path ? `${path}.${key}` : key, lines);
  } else if (value !== null && value !== "") {
    lines.push(path ? `${path}: ${String(value)}` : String(value));
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
