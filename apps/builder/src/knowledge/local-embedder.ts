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
 * Embeds one text with the local feature-hashing embedder.
 *
 * @example const vector = localEmbedding("How do I rotate an API key?"); // 384 numbers, unit length
 */
export function localEmbedding(text: string, dimensions: number = LOCAL_EMBEDDING_DIMENSIONS): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const words = tokenize(text).filter((word) => !STOPWORDS.has(word));
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    add(`w:${word}`, WORD_WEIGHT);
    const next = words[i + 1];
    if (next !== undefined) add(`b:${word} ${next}`, BIGRAM_WEIGHT);
    const padded = `<${word}>`;
    const grams = new Set<string>();
    for (let n = 3; n <= 5; n++)
      for (let j = 0; j + n <= padded.length; j++) grams.add(padded.slice(j, j + n));
    // Spread over the word's n-grams so long words do not outweigh short ones.
    const share = CHAR_NGRAM_WEIGHT / Math.sqrt(Math.max(grams.size, 1));
    for (const gram of grams) add(`c:${gram}`, share);
  }
  const vector = new Array<number>(dimensions).fill(0);
  for (const [feature, count] of counts) {
    const hash = fnv1a(feature);
    const index = hash % dimensions;
    const sign = (hash >>> 31) & 1 ? -1 : 1;
    vector[index] = (vector[index] ?? 0) + sign * Math.log1p(count);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm === 0) return vector;
  return vector.map((value) => value / norm);
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

/** 32-bit FNV-1a over UTF-16 code units: fast, stable across runs and platforms. */
function fnv1a(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
