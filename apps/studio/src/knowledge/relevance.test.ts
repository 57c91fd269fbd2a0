import { describe, expect, it } from "vitest";
import { passageFocusOf, passageHref } from "./passage-link.ts";
import { relevance, relevanceText } from "./relevance.ts";

describe("relevance", () => {
  it("reads a fused score as a share of the best one, with a word", () => {
    expect(relevance(0.0328, 0.0328)).toEqual({ percent: 100, label: "strong" });
    expect(relevance(0.0164, 0.0328)).toEqual({ percent: 50, label: "medium" });
    expect(relevance(0.0082, 0.0328)).toEqual({ percent: 25, label: "weak" });
  });

  it("puts the bounds where the labels change: 70 % strong, 40 % medium", () => {
    expect(relevance(7, 10).label).toBe("strong");
    expect(relevance(6.9, 10).label).toBe("medium");
    expect(relevance(4, 10).label).toBe("medium");
    expect(relevance(3.9, 10).label).toBe("weak");
  });

  it("answers 0 % for a zero or negative score and for an empty list's best", () => {
    expect(relevance(-0.2, 0.8)).toEqual({ percent: 0, label: "weak" });
    expect(relevance(0, 0)).toEqual({ percent: 0, label: "weak" });
  });
});

describe("relevance text", () => {
  it("gives a match's share of the best with a word, and a fused score's word alone", () => {
    expect(relevanceText(relevance(6, 10), { isFused: false })).toBe("medium · 60%");
    // A passage only the local embedder's ranking (weight 0.05) found, second in a hybrid list.
    expect(relevanceText(relevance(0.05 / 12, 1.05 / 11), { isFused: true })).toBe("weak match");
    expect(relevanceText(relevance(1 / 12, 1.05 / 11), { isFused: true })).toBe("strong match");
  });
});

describe("passage links", () => {
  it("opens the passage a citation names, and reads it back", () => {
    const href = passageHref({
      knowledge_base_id: "kb_1",
      document_id: "doc_2",
      chunk_id: "chk_3",
      position: 15,
    });
    expect(href).toBe("/knowledge/kb_1?document=doc_2&chunk=chk_3&position=15");
    expect(passageFocusOf(href.slice(href.indexOf("?")))).toEqual({
      documentId: "doc_2",
      chunkId: "chk_3",
      position: 15,
    });
  });

  it("ignores an address without a whole passage", () => {
    expect(passageFocusOf("")).toBeNull();
    expect(passageFocusOf("?document=doc_2&chunk=chk_3")).toBeNull();
    expect(passageFocusOf("?document=doc_2&chunk=chk_3&position=-1")).toBeNull();
  });
});
