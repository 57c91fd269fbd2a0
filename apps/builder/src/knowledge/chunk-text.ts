import type { DocumentSection } from "./parse-document.ts";

/**
 * Chunk sizes are given in tokens but measured in characters: about 4 characters per token for
 * English with the BPE tokenizers of the common embedding models. Approximate by design: no
 * tokenizer ships for every provider, and a chunk a little off its nominal size retrieves the same.
 */
export const CHARACTERS_PER_TOKEN = 4;

export const DEFAULT_CHUNK_SIZE = 500;
export const DEFAULT_CHUNK_OVERLAP = 50;

/** The approximate token count of a text (see `CHARACTERS_PER_TOKEN`). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

export interface TextChunk {
  text: string;
  /** Character offsets into the document's text (its sections joined by a blank line). */
  start: number;
  end: number;
  page: number | null;
  headingPath: string[];
  tokenCount: number;
}

/** Boundary strengths: the splitter cuts at the strongest one that keeps a chunk within its size. */
const PARAGRAPH = 3;
const LINE = 2;
const SENTENCE = 1;
const WORD = 0;

/**
 * Splits sections into chunks of at most `chunkSize` tokens, each starting about `chunkOverlap`
 * tokens before the previous one ended. Recursive in the usual sense: a chunk never crosses a
 * section (heading or page); inside one it ends at a paragraph break if one lies in the last
 * half of the window, else a line break, else a sentence end, else a word break, else mid-word.
 * A section holding only its heading (`# Guide` straight above `## Install`) is no chunk of its
 * own, which a search would find and cite for its title alone: it starts the next section's first
 * chunk, making that one longer by the heading.
 *
 * @example chunkSections(sections, { chunkSize: 500, chunkOverlap: 50 })
 */
export function chunkSections(
  sections: readonly DocumentSection[],
  options: { chunkSize: number; chunkOverlap: number },
): TextChunk[] {
  if (options.chunkOverlap >= options.chunkSize)
    throw new Error("chunkOverlap must be smaller than chunkSize");
  const maxChars = options.chunkSize * CHARACTERS_PER_TOKEN;
  const overlapChars = options.chunkOverlap * CHARACTERS_PER_TOKEN;
  const joined = sections.map((section) => section.text).join("\n\n");
  const chunks: TextChunk[] = [];
  const push = (start: number, end: number, section: DocumentSection) => {
    const text = joined.slice(start, end);
    chunks.push({
      text,
      start,
      end,
      page: section.page,
      headingPath: section.headingPath,
      tokenCount: estimateTokens(text),
    });
  };
  /** Headings with nothing under them so far: where the first starts, where the last ends. */
  let pending: { start: number; end: number; section: DocumentSection } | undefined;
  let offset = 0;
  for (const section of sections) {
    const ranges = splitText(section.text, maxChars, overlapChars);
    const [first] = ranges;
    if (first && ranges.length === 1 && isHeadingOnly(section)) {
      pending = { start: pending?.start ?? offset + first[0], end: offset + first[1], section };
    } else {
      for (const [index, [start, end]] of ranges.entries()) {
        push(index === 0 && pending ? pending.start : offset + start, offset + end, section);
        pending = undefined;
      }
    }
    offset += section.text.length + 2;
  }
  // Headings at the very end have nothing to start: they stay, as one chunk.
  if (pending) push(pending.start, pending.end, pending.section);
  return chunks;
}

/** A section holding nothing but its own heading: `## Install` (Markdown) or the title alone (HTML). */
function isHeadingOnly(section: DocumentSection): boolean {
  const title = section.headingPath.at(-1);
  if (title === undefined) return false;
  const text = section.text.trim();
  return text === title || text.replace(/^#{1,6}\s+/, "").replace(/\s+#+$/, "") === title;
}

/** `[start, end)` ranges of `text`, trimmed of surrounding whitespace. */
export function splitText(text: string, maxChars: number, overlapChars: number): [number, number][] {
  const ranges: [number, number][] = [];
  let start = skipSpace(text, 0);
  while (start < text.length) {
    const limit = start + maxChars;
    if (limit >= text.length) {
      ranges.push([start, trimEnd(text, start, text.length)]);
      break;
    }
    const cut = bestCut(text, start, limit, maxChars);
    const end = trimEnd(text, start, cut);
    if (end > start) ranges.push([start, end]);
    let next = Math.max(start + 1, cut - overlapChars);
    // Start the overlap on a word, not inside one.
    if (next < cut && next > 0 && !isSpace(text, next - 1)) {
      const space = text.slice(next, cut).search(/\s/);
      next = space === -1 ? cut : next + space;
    }
    start = skipSpace(text, next);
  }
  return ranges;
}

function bestCut(text: string, start: number, limit: number, maxChars: number): number {
  const window = text.slice(start, limit + 1);
  // Only cuts in the second half of the window count, so chunks are not made tiny to end on a paragraph.
  const earliest = Math.floor(maxChars / 2);
  let best = -1;
  let bestStrength = -1;
  const consider = (position: number, strength: number) => {
    if (position <= 0 || position > maxChars) return;
    if (strength > bestStrength || (strength === bestStrength && position > best)) {
      best = position;
      bestStrength = strength;
    }
  };
  const boundary = /\n[ \t]*\n\s*|\n|[.!?。！？]["')\]]*\s+|\s+/g;
  for (let match = boundary.exec(window); match; match = boundary.exec(window)) {
    const token = match[0];
    const end = match.index + token.length;
    const strength = /\n[ \t]*\n/.test(token)
      ? PARAGRAPH
      : token.includes("\n")
        ? LINE
        : /^[.!?。！？]/.test(token)
          ? SENTENCE
          : WORD;
    // A cut sits after the separator, so the chunk keeps its punctuation and the next starts on a word.
    const position = strength === WORD ? match.index : Math.min(end, maxChars);
    if (position >= earliest || strength === WORD) consider(position, position >= earliest ? strength : -0.5);
  }
  return best > 0 ? start + best : limit;
}

function isSpace(text: string, index: number): boolean {
  return /\s/.test(text[index] ?? "");
}

function skipSpace(text: string, index: number): number {
  let i = index;
  while (i < text.length && isSpace(text, i)) i += 1;
  return i;
}

function trimEnd(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && isSpace(text, i - 1)) i -= 1;
  return i;
}
