import { describe, expect, it } from "vitest";
import { chunkSections, splitText } from "./chunk-text.ts";
import { htmlSections, markdownSections } from "./parse-document.ts";

describe("splitText", () => {
  it("keeps a short text whole, trimmed", () => {
    expect(splitText("  hello world \n", 100, 10)).toEqual([[2, 13]]);
  });

  it("prefers a paragraph break over a sentence end, and a sentence end over a word break", () => {
    const text = `${"a".repeat(30)}. ${"b".repeat(20)}\n\n${"c".repeat(30)}. ${"d".repeat(40)}`;
    const [first] = splitText(text, 70, 0);
    expect(text.slice(...(first as [number, number]))).toBe(`${"a".repeat(30)}. ${"b".repeat(20)}`);
    const sentences = "One two three four five six. Seven eight nine ten eleven twelve thirteen.";
    const ranges = splitText(sentences, 40, 0);
    expect(sentences.slice(...(ranges[0] as [number, number]))).toBe("One two three four five six.");
  });

  it("overlaps neighbours by at most the overlap, starting on a word", () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
    const ranges = splitText(words, 100, 20);
    for (let i = 0; i + 1 < ranges.length; i++) {
      const [start, end] = ranges[i] as [number, number];
      const [nextStart] = ranges[i + 1] as [number, number];
      expect(end - start).toBeLessThanOrEqual(100);
      expect(nextStart).toBeLessThan(end);
      expect(end - nextStart).toBeLessThanOrEqual(20);
      expect(words[nextStart - 1]).toBe(" ");
    }
    expect(ranges.at(-1)?.[1]).toBe(words.length);
  });

  it("cuts a word longer than the chunk rather than looping", () => {
    const ranges = splitText("x".repeat(250), 100, 10);
    expect(ranges.map(([start, end]) => end - start).every((length) => length <= 100)).toBe(true);
    expect(ranges.at(-1)?.[1]).toBe(250);
  });
});

describe("chunkSections", () => {
  it("never crosses a section and records offsets into the joined text, page and heading path", () => {
    const sections = [
      { text: "First page text.", headingPath: [], page: 1 },
      { text: "Second page.", headingPath: ["Intro"], page: 2 },
    ];
    const chunks = chunkSections(sections, { chunkSize: 100, chunkOverlap: 10 });
    expect(chunks).toEqual([
      { text: "First page text.", start: 0, end: 16, page: 1, headingPath: [], tokenCount: 4 },
      { text: "Second page.", start: 18, end: 30, page: 2, headingPath: ["Intro"], tokenCount: 3 },
    ]);
    const joined = sections.map((section) => section.text).join("\n\n");
    expect(joined.slice(18, 30)).toBe("Second page.");
  });

  it("gives a heading with nothing under it no chunk of its own: it starts the next section's first chunk", () => {
    const markdown = "# Guide\n\n## Install\n\nRun npm install.\n\n## Use\n\nRun npm start.\n";
    const sections = markdownSections(markdown);
    const chunks = chunkSections(sections, { chunkSize: 100, chunkOverlap: 10 });
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      "# Guide\n\n\n## Install\n\nRun npm install.",
      "## Use\n\nRun npm start.",
    ]);
    expect(chunks[0]?.headingPath).toEqual(["Guide", "Install"]);
    const joined = sections.map((section) => section.text).join("\n\n");
    for (const chunk of chunks) expect(joined.slice(chunk.start, chunk.end)).toBe(chunk.text);

    const html = chunkSections(htmlSections("<h1>Guide</h1><h2>Install</h2><p>Run npm install.</p>"), {
      chunkSize: 100,
      chunkOverlap: 10,
    });
    expect(html).toHaveLength(1);
    expect(html[0]?.text).toMatch(/^Guide\s+Install\s+Run npm install\.$/);
    // A heading alone at the end has nothing to join, and stays.
    expect(
      chunkSections(markdownSections("Intro.\n# Empty\n"), { chunkSize: 100, chunkOverlap: 10 }),
    ).toHaveLength(2);
  });

  it("rejects an overlap as large as the chunk", () => {
    expect(() => chunkSections([], { chunkSize: 10, chunkOverlap: 10 })).toThrow(/smaller/);
  });
});
