/**
 * The offline embedder: deterministic feature hashing, not a learned model. Each text becomes
 * a signed sum of hashed features — word unigrams, word bigrams and character 3–5-grams of each
 * word (so "indexing" and "indexes" share features) — with sub-linear term weights, L2-normalised.
 * It needs no weights and no network, so knowledge bases work on a fresh machine; it matches
 * wording, not meaning (synonyms and paraphrases are missed). For semantic retrieval configure a
 * provider model (OpenAI, Ollama through openai-compatible, …).
 */
export const LOCAL_EMBEDDING_MODEL = "feature-hashing-v1";
export const LOCAL_EMBEDDING_DIMENSIONS = 384;

// Function words carry no topic and, without corpus statistics, would dominate every vector.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this those to was we were what when " +
    "where which who whom why will with would you your about after all also any because before being both each few more " +
    "most other over same some such only own too very just should now up down out off again further once here"
  ).split(" "),
);

const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.7;
const CHAR_NGRAM_WEIGHT = 0.35;

/**
 * How much each word of a text counts (1 for documents). A question is embedded with its words
 * weighted by their inverse document frequency in the bases searched (`search-knowledge.ts`): the
 * document vectors are unchanged, and the cosine becomes an idf-weighted match, so "perl" in every
 * chunk no longer counts as much as the one rare word that names the answer.
 */
export type WordWeight = (word: string) => number;

/**
 * Embeds one text with the local feature-hashing embedder.
 *
 * @example const vector = localEmbedding("How do I rotate an API key?"); // 384 numbers, unit length
 */
export function localEmbedding(
  text: string,
  dimensions: number = LOCAL_EMBEDDING_DIMENSIONS,
  wordWeight?: WordWeight,
): number[] {
  // Features are keyed by their 32-bit hash, computed over the feature's prefix and characters
  // without building its string, and counted in a typed open-addressing table (ingestion embeds
  // hundreds of chunks a second; strings and a Map per feature were most of the time). Vectors are
  // the same as with string keys.
  const table = featureTable;
  table.reset();
  const add = (hash: number, count: number, weight: number) => table.add(hash, count, weight);
  const words = tokenize(text).filter((word) => !STOPWORDS.has(word));
  const wordWeights = wordWeight ? words.map((word) => wordWeight(word)) : undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const weight = wordWeights?.[i] ?? 1;
    add(fnv1a(word, 0, word.length, WORD_PREFIX), WORD_WEIGHT, weight);
    const next = words[i + 1];
    if (next !== undefined) {
      const bigram = fnv1a(
        next,
        0,
        next.length,
        fnv1a(" ", 0, 1, fnv1a(word, 0, word.length, BIGRAM_PREFIX)),
      );
      add(bigram, BIGRAM_WEIGHT, Math.sqrt(weight * (wordWeights?.[i + 1] ?? 1)));
    }
    const { grams, share } = wordGrams(word);
    for (const gram of grams) add(gram, share, weight);
  }
  const vector = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < table.size; i++) {
    const slot = table.order[i] as number;
    const hash = table.keys[slot] as number;
    const index = hash % dimensions;
    const sign = (hash >>> 31) & 1 ? -1 : 1;
    const weight = wordWeight ? (table.weights[slot] as number) : 1;
    vector[index] = (vector[index] ?? 0) + sign * Math.log1p(table.counts[slot] as number) * weight;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm === 0) return vector;
  return vector.map((value) => value / norm);
}

/**
 * Counts (and the largest weight) per 32-bit feature hash, in insertion order; reused between
 * calls (embedding is synchronous) and grown when a text has more features than it holds.
 */
class FeatureTable {
  keys = new Uint32Array(1 << 12);
  counts = new Float64Array(1 << 12);
  weights = new Float64Array(1 << 12);
  used = new Uint8Array(1 << 12);
  order = new Uint32Array(1 << 12);
  size = 0;

  reset(): void {
    for (let i = 0; i < this.size; i++) this.used[this.order[i] as number] = 0;
    this.size = 0;
  }

  add(hash: number, count: number, weight: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = (Math.imul(hash, 0x9e3779b1) >>> 0) & mask;
    while (this.used[slot] === 1 && this.keys[slot] !== hash) slot = (slot + 1) & mask;
    if (this.used[slot] === 1) {
      this.counts[slot] = (this.counts[slot] as number) + count;
      if (weight > (this.weights[slot] as number)) this.weights[slot] = weight;
      return;
    }
    this.used[slot] = 1;
    this.keys[slot] = hash;
    this.counts[slot] = count;
    this.weights[slot] = weight;
    this.order[this.size++] = slot;
  }

  private grow(): void {
    const { keys, counts, weights, order, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Uint32Array(capacity);
    this.counts = new Float64Array(capacity);
    this.weights = new Float64Array(capacity);
    this.used = new Uint8Array(capacity);
    this.order = new Uint32Array(capacity);
    this.size = 0;
    for (let i = 0; i < size; i++) {
      const slot = order[i] as number;
      this.add(keys[slot] as number, counts[slot] as number, weights[slot] as number);
    }
  }
}
const featureTable = new FeatureTable();

/** A word's distinct character 3–5-gram hashes and the weight each gets. */
type WordGrams = { grams: Uint32Array; share: number };
/**
 * Words recur (a few thousand distinct ones make most of any text), so their n-grams are computed
 * once per process: bounded, and emptied when full rather than tracked least-recently-used.
 */
const gramCache = new Map<string, WordGrams>();
const GRAM_CACHE_WORDS = 50_000;

function wordGrams(word: string): WordGrams {
  const cached = gramCache.get(word);
  if (cached) return cached;
  const padded = `<${word}>`;
  const distinct = new Set<number>();
  for (let n = 3; n <= 5; n++)
    for (let j = 0; j + n <= padded.length; j++) distinct.add(fnv1a(padded, j, j + n, GRAM_PREFIX));
  // Spread over the word's n-grams so long words do not outweigh short ones.
  const computed = {
    grams: Uint32Array.from(distinct),
    share: CHAR_NGRAM_WEIGHT / Math.sqrt(Math.max(distinct.size, 1)),
  };
  if (gramCache.size >= GRAM_CACHE_WORDS) gramCache.clear();
  gramCache.set(word, computed);
  return computed;
}

/** Lower-cased words (letters and digits), accents folded. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

const FNV_OFFSET = 0x811c9dc5;

/**
 * 32-bit FNV-1a over UTF-16 code units `start` to `end` of `value`, continuing from `hash`: fast,
 * stable across runs and platforms. Chained, it hashes a concatenation without building it.
 */
function fnv1a(value: string, start: number, end: number, hash: number = FNV_OFFSET): number {
  let h = hash;
  for (let i = start; i < end; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// The features' prefixes ("w:", "b:", "c:"), hashed once.
const WORD_PREFIX = fnv1a("w:", 0, 2);
const BIGRAM_PREFIX = fnv1a("b:", 0, 2);
const GRAM_PREFIX = fnv1a("c:", 0, 2);
