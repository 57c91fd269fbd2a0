import { describe, expect, it } from "vitest";
import { passageFocusOf, passageHref } from "./passage-link.ts";
import { relevance, relevanceText, scaleOf } from "./relevance.ts";

describe("relevance", () => {
  it("reads full text (BM25) as a share of the list's best: 70 % strong, 40 % medium", () => {
    const bm25 = (score: number) => relevance(score, { best: 10, max: null, scale: "bm25" });
    expect(bm25(10)).toEqual({ percent: 100, label: "strong" });
    expect(bm25(7).label).toBe("strong");
    expect(bm25(6.9).label).toBe("medium");
    expect(bm25(4).label).toBe("medium");
    expect(bm25(3.9).label).toBe("weak");
  });

  it("reads a similarity on its own, whatever the list's best: 0.5 strong, 0.3 medium", () => {
    const similarity = (score: number) => relevance(score, { best: 0.21, max: 1, scale: "similarity" });
    // The best of a list of unrelated passages is still weak.
    expect(similarity(0.21)).toEqual({ percent: 21, label: "weak" });
    expect(similarity(0.3).label).toBe("medium");
    expect(similarity(0.5).label).toBe("strong");
  });

  it("reads a fused score against the best possible: strong needs a top place in every ranking", () => {
    const max = 2 / 11;
    const fused = (score: number) => relevance(score, { best: 1 / 11, max, scale: "fused" });
    expect(fused(1 / 11 + 1 / 12).label).toBe("strong");
    // First of one ranking only (here the nearest vectors, which always answer something).
    expect(fused(1 / 11).label).toBe("medium");
    expect(fused(1 / 12).label).toBe("weak");
    expect(fused(1 / 13).label).toBe("weak");
  });

  it("answers 0 % for a zero or negative score and for an empty list's best", () => {
    expect(relevance(-0.2, { best: 0.8, max: null, scale: "bm25" })).toEqual({ percent: 0, label: "weak" });
    expect(relevance(0, { best: 0, max: null, scale: "bm25" })).toEqual({ percent: 0, label: "weak" });
  });

  it("takes the scale from the API's max_score", () => {
    expect(scaleOf(null)).toBe("bm25");
    expect(scaleOf(1)).toBe("similarity");
    expect(scaleOf(2 / 11)).toBe("fused");
  });
});

describe("relevance text", () => {
  it("gives a match's percentage with a word, and a fused score's word alone", () => {
    expect(relevanceText({ percent: 60, label: "medium" }, "bm25")).toBe("medium · 60%");
    expect(relevanceText({ percent: 4, label: "weak" }, "fused")).toBe("weak match");
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
