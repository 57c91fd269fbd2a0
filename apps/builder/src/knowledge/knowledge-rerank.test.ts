import { type FakeCohereRerank, startFakeCohereRerank } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder } from "../../test/harness.ts";
import { createBase, search, uploadOk, waitForDocument } from "../../test/knowledge-support.ts";

// The fake listens on 127.0.0.1, which the SSRF guard refuses unless private URLs are allowed.
const builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
let fake: FakeCohereRerank;
let alice: string;
let reranked: string;
let plain: string;
const RERANK = { provider: "cohere", model: "rerank-v3.5" };

const documents: [string, string][] = [
  ["refunds.md", "# Refunds\n\nRefunds: refund requests, refund policy, refund forms and refund times."],
  [
    "policy.md",
    "# Returns\n\nYou may send an item back within 30 days; we repay the full price. Preferred answer.",
  ],
  [
    "shipping.md",
    "# Shipping\n\nParcels leave the warehouse daily; refund of shipping costs is not possible.",
  ],
];

beforeAll(async () => {
  // Prefers the passage marked "Preferred", which BM25 ranks below the one repeating "refund".
  fake = await startFakeCohereRerank({
    apiKey: "cohere-key",
    score: (_query, document) =>
      document.includes("Preferred") ? 0.93 : document.includes("refund") ? 0.41 : 0.02,
    script: ({ query }) =>
      query.includes("overload")
        ? { error: { status: 429, message: "You are past your rate limit." } }
        : undefined,
  });
  alice = (await builder.signUp()).cookie;
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie: alice,
    json: { provider: "cohere", api_key: "cohere-key", base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
  reranked = await createBase(builder, alice, { name: "Reranked", rerank: RERANK });
  plain = await createBase(builder, alice, { name: "Plain" });
  for (const base of [reranked, plain]) {
    for (const [name, text] of documents) {
      const document = await uploadOk(builder, alice, { knowledgeBaseId: base, name, bytes: text });
      expect((await waitForDocument(builder, alice, document.id)).status).toBe("ready");
    }
  }
});
afterAll(async () => {
  await builder.stop();
  await fake.close();
});

describe("rerank stage", () => {
  it("is off by default: no call, first-stage order and scores", async () => {
    const response = await builder.request(`/api/knowledge-bases/${plain}`, { cookie: alice });
    expect(((await response.json()) as { rerank: unknown }).rerank).toBeNull();
    const result = await search(builder, alice, plain, { query: "refund", mode: "fulltext", top_k: 2 });
    expect((result as { reranked?: boolean }).reranked).toBe(false);
    expect(result.data[0]?.document_name).toBe("refunds.md");
    expect(fake.calls).toHaveLength(0);
  });

  it("reorders the first stage's candidates with the base's rerank model, scores being its relevance", async () => {
    const response = await builder.request(`/api/knowledge-bases/${reranked}`, { cookie: alice });
    expect(((await response.json()) as { rerank: unknown }).rerank).toEqual(RERANK);
    const result = await search(builder, alice, reranked, {
      query: "refund policy",
      mode: "fulltext",
      top_k: 2,
    });
    expect(result.status).toBe(200);
    expect((result as { reranked?: boolean }).reranked).toBe(true);
    expect(result.data.map((hit) => [hit.document_name, hit.score])).toEqual([
      ["policy.md", 0.93],
      ["refunds.md", 0.41],
    ]);
    const call = fake.calls.at(-1);
    expect(call).toMatchObject({
      model: "rerank-v3.5",
      query: "refund policy",
      topN: 2,
      apiKey: "cohere-key",
    });
    // Every first-stage candidate, under its document name and heading.
    expect(call?.documents).toHaveLength(3);
    expect(call?.documents.some((text) => text.startsWith("policy.md > Returns\n\n"))).toBe(true);

    const strict = await search(builder, alice, reranked, {
      query: "refund policy",
      mode: "fulltext",
      min_score: 0.5,
    });
    expect(strict.data.map((hit) => hit.document_name)).toEqual(["policy.md"]);
  });

  it("answers the provider's errors: 429 rate limit, 424 refused or missing key, 502 unknown model", async () => {
    const limited = await search(builder, alice, reranked, { query: "overload refund", mode: "fulltext" });
    expect(limited.status).toBe(429);
    expect(limited.error?.message).toMatch(/rate limit/);

    const bad = await createBase(builder, alice, {
      name: "Unknown model",
      rerank: { provider: "cohere", model: "rerank-x" },
    });
    const document = await uploadOk(builder, alice, { knowledgeBaseId: bad, name: "a.md", bytes: "refund" });
    await waitForDocument(builder, alice, document.id);
    const unknown = await search(builder, alice, bad, { query: "refund", mode: "fulltext" });
    expect(unknown.status).toBe(502);
    expect(unknown.error?.message).toMatch(/rerank-x' not found/);

    const bob = (await builder.signUp()).cookie;
    const wrongKey = await builder.request("/api/credentials", {
      method: "POST",
      cookie: bob,
      json: { provider: "cohere", api_key: "stolen", base_url: fake.baseUrl },
    });
    expect(wrongKey.status).toBe(201);
    const bobs = await createBase(builder, bob, { name: "Bob's", rerank: RERANK });
    const bobsDocument = await uploadOk(builder, bob, {
      knowledgeBaseId: bobs,
      name: "b.md",
      bytes: "refund",
    });
    await waitForDocument(builder, bob, bobsDocument.id);
    const refused = await search(builder, bob, bobs, { query: "refund", mode: "fulltext" });
    expect(refused.status).toBe(424);

    const carol = (await builder.signUp()).cookie;
    const carols = await createBase(builder, carol, { name: "Carol's", rerank: RERANK });
    const carolsDocument = await uploadOk(builder, carol, {
      knowledgeBaseId: carols,
      name: "c.md",
      bytes: "refund",
    });
    await waitForDocument(builder, carol, carolsDocument.id);
    const missing = await search(builder, carol, carols, { query: "refund", mode: "fulltext" });
    expect(missing.status).toBe(424);
  });

  it("refuses a provider without rerank models with 422", async () => {
    const response = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: alice,
      json: { name: "Nope", rerank: { provider: "openai", model: "gpt-4o" } },
    });
    expect(response.status).toBe(422);
  });
});
