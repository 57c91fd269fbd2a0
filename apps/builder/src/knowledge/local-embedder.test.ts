import { afterEach, describe, expect, it } from "vitest";
import { EmbeddingError } from "./embedders.ts";
import { LOCAL_EMBEDDING_DIMENSIONS, localEmbedding } from "./local-embedder.ts";
import { createLocalEmbedderThread, type LocalEmbedderThread } from "./local-embedder-thread.ts";
import { vectorLiteral } from "./vector-literal.ts";

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

describe("the local embedder's thread", () => {
  const threads: LocalEmbedderThread[] = [];
  const thread = (options?: Parameters<typeof createLocalEmbedderThread>[0]) => {
    const created = createLocalEmbedderThread(options);
    threads.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(threads.map((created) => created.stop()));
    threads.length = 0;
  });

  /** Many distinct words: their n-grams fill the embedder's cache, megabytes of heap. */
  const manyWords = (count: number) =>
    Array.from({ length: count }, (_, i) => `w${i.toString(36)}q${(i * 7919).toString(36)}`).join(" ");

  it("answers exactly what embedding on this thread gives, as pgvector literals, in order", async () => {
    const texts = [
      "Rotate the API key every ninety days.",
      "Setup > Network\n\nThe proxy listens on port 8080.",
      "the of and",
      "Café, naïve, ÉCOLE — accents fold",
      manyWords(2_000),
    ];
    const embedder = thread();
    // Concurrent calls as well: each answer goes to its own caller.
    const [first, second] = await Promise.all([embedder.embed(texts), embedder.embed([...texts].reverse())]);
    const expected = texts.map((text) => vectorLiteral(localEmbedding(text, LOCAL_EMBEDDING_DIMENSIONS)));
    expect(first).toEqual(expected);
    expect(second).toEqual([...expected].reverse());
  });

  it("starts again after being stopped, and after going idle", async () => {
    const embedder = thread({ idleMs: 10 });
    const expected = [vectorLiteral(localEmbedding("rotate keys"))];
    expect(await embedder.embed(["rotate keys"])).toEqual(expected);
    await embedder.stop();
    expect(await embedder.embed(["rotate keys"])).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await embedder.embed(["rotate keys"])).toEqual(expected);
  });

  it("answers a call made as it stops on a new thread: the stopped thread's exit fails none of its calls", async () => {
    const embedder = thread();
    const expected = [vectorLiteral(localEmbedding("rotate keys"))];
    expect(await embedder.embed(["rotate keys"])).toEqual(expected);
    // Not awaited: the old thread's exit event comes while the new thread works on the call.
    const stopping = embedder.stop();
    const next = embedder.embed(["rotate keys"]);
    await stopping;
    expect(await next).toEqual(expected);
  });

  it("rejects with a permanent EmbeddingError saying why when the thread runs out of memory, and recovers", async () => {
    const embedder = thread({ memoryMb: 16 });
    const failure = await embedder.embed([manyWords(300_000)]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EmbeddingError);
    expect((failure as EmbeddingError).isTransient).toBe(false);
    expect((failure as Error).message).toBe(
      "The local embedder's thread ran out of memory (its limit is 16 MB).",
    );
    // The service is still here, and the next call gets a new thread.
    expect(await embedder.embed(["rotate keys"])).toEqual([vectorLiteral(localEmbedding("rotate keys"))]);
  });

  it("rejects the calls still waiting when it is stopped", async () => {
    const embedder = thread();
    const waiting = embedder.embed([manyWords(20_000)]).catch((error: unknown) => error);
    await embedder.stop();
    expect(await waiting).toMatchObject({
      name: "EmbeddingError",
      message: "The local embedder's thread was stopped.",
    });
  });
});
