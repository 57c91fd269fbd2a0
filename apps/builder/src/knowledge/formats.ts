/** The document formats ingestion understands. */
export const DOCUMENT_FORMATS = ["pdf", "docx", "markdown", "html", "text", "csv", "json"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** The media type recorded for each format (what we believe the file is, not what the client said). */
export const FORMAT_CONTENT_TYPES: Record<DocumentFormat, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  markdown: "text/markdown",
  html: "text/html",
  text: "text/plain",
  csv: "text/csv",
  json: "application/json",
};

const BY_EXTENSION: Record<string, DocumentFormat> = {
  pdf: "pdf",
  docx: "docx",
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  html: "html",
  htm: "html",
  txt: "text",
  text: "text",
  csv: "csv",
  json: "json",
};

const BY_MEDIA_TYPE: Record<string, DocumentFormat> = Object.fromEntries(
  Object.entries(FORMAT_CONTENT_TYPES).map(([format, type]) => [type, format as DocumentFormat]),
);

/** How many leading bytes `detectFormat` needs to see. */
export const SNIFF_BYTES = 4096;

type Sniffed = "pdf" | "zip" | "text" | "binary";

/**
 * The format of an upload, from its name (or declared type when the name has no known
 * extension) checked against its first bytes: a `.pdf` must start with `%PDF-`, a `.docx` must
 * be a ZIP, and the text formats must be UTF-8 without NUL bytes. Anything else is undefined (415).
 *
 * @example detectFormat("notes.md", "text/markdown", firstBytes) // "markdown"
 */
export function detectFormat(
  fileName: string,
  declaredType: string | undefined,
  head: Uint8Array,
): DocumentFormat | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  const claimed =
    (extension ? BY_EXTENSION[extension] : undefined) ??
    BY_MEDIA_TYPE[(declaredType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""];
  if (!claimed) return undefined;
  const sniffed = sniff(head);
  if (claimed === "pdf") return sniffed === "pdf" ? "pdf" : undefined;
  if (claimed === "docx") return sniffed === "zip" ? "docx" : undefined;
  if (sniffed !== "text") return undefined;
  if (claimed === "json" && !/^\s*([[{"]|-?\d|true\b|false\b|null\b)/.test(textOf(head))) return undefined;
  return claimed;
}

function sniff(head: Uint8Array): Sniffed {
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "pdf";
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return "zip";
  if (head.includes(0)) return "binary";
  try {
    // `stream: true` tolerates a multi-byte character cut off at the end of the sniffed head.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return "text";
  } catch {
    return "binary";
  }
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

function textOf(head: Uint8Array): string {
  return new TextDecoder("utf-8").decode(head).replace(/^\uFEFF/, "");
}
