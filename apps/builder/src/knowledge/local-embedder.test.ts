import { describe, expect, it } from "vitest";
import { LOCAL_EMBEDDING_DIMENSIONS, localEmbedding } from "./local-embedder.ts";

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);

describe("localEmbedding", () => {
  it("is deterministic, unit length and of the stated width", () => {
    const vector = localEmbedding("Rotate the API key every ninety days.");
    expect(vector).toHaveLength(LOCAL_EMBEDDING_DIMENSIONS);
    expect(localEmbedding("Rotate the API key every ninety days.")).toEqual(vector);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
  });

  it("places texts sharing words and word forms closer than unrelated ones", () => {
    const query = localEmbedding("rotating api keys");
    const related = localEmbedding("How to rotate an API key safely");
    const unrelated = localEmbedding("Invoices are paid by bank transfer");
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
  });

  it("ignores case, accents and stopwords", () => {
    expect(localEmbedding("The Café")).toEqual(localEmbedding("cafe"));
    expect(localEmbedding("the of and").every((value) => value === 0)).toBe(true);
  });

  it("weighs a question's words as told (idf), leaving unweighted embeddings as they were", () => {
    const perl = localEmbedding("Perl scripts and Perl modules and Perl packages");
    const regex = localEmbedding("A regex matches text");
    const question = "perl regex";
    // Unweighted, the question shares as much with both.
    const plain = localEmbedding(question);
    expect(localEmbedding(question, LOCAL_EMBEDDING_DIMENSIONS, () => 1)).toEqual(plain);
    const rareRegex = localEmbedding(question, LOCAL_EMBEDDING_DIMENSIONS, (word) =>
      word === "regex" ? 3 : 0.1,
    );
    const rarePerl = localEmbedding(question, LOCAL_EMBEDDING_DIMENSIONS, (word) =>
      word === "perl" ? 3 : 0.1,
    );
    expect(cosine(rareRegex, regex)).toBeGreaterThan(cosine(rareRegex, perl));
    expect(cosine(rarePerl, perl)).toBeGreaterThan(cosine(rarePerl, regex));
  });
});
