/** How a search hit compares, in words a person reads at a glance. */
export type RelevanceLabel = "strong" | "medium" | "weak";

export interface Relevance {
  /** 0–100: the hit's score as a share of what it is read against (see `relevance`). */
  percent: number;
  label: RelevanceLabel;
}

/** How a mode's scores are read; each has its own thresholds, in percent of the scale's top. */
export type ScoreScale = "bm25" | "similarity" | "fused";

/**
 * Where the labels change, per scale (docs/knowledge-bases.md):
 * - `bm25` (full text): unbounded, so a share of the list's best; every hit shares words with the
 *   question. Strong ≥ 70 %, medium ≥ 40 %.
 * - `similarity` (cosine of a provider model's embeddings, or a rerank model's relevance, 0–1): the
 *   score itself. Unrelated text scores about 0.1–0.25 with common embedding models, a paraphrase
 *   0.5 and up. Strong ≥ 0.5, medium ≥ 0.3.
 * - `fused` (hybrid; vector with the local embedder): a share of the best fused score possible, first
 *   in every ranking. Strong needs a top place in every ranking (≥ 85 %), medium at least the first
 *   place of one (≥ 50 %); a passage only the nearest-vector ranking found, which always answers
 *   something, is weak.
 */
export const THRESHOLDS: Record<ScoreScale, { strong: number; medium: number }> = {
  bm25: { strong: 70, medium: 40 },
  similarity: { strong: 50, medium: 30 },
  fused: { strong: 85, medium: 50 },
};

/**
 * A hit's relevance. `max` is the highest score the search could give (the API's `max_score`):
 * null for BM25, whose hits are read against the list's `best` instead. A share of the list's best
 * alone called the first hits of any list strong, an unrelated one included, because a fused score
 * falls slowly with rank and some list always comes back.
 *
 * @example relevance(0.0164, { best: 0.18, max: 2 / 11, scale: "fused" }) // { percent: 9, label: "weak" }
 */
export function relevance(
  score: number,
  { best, max, scale }: { best: number; max: number | null; scale: ScoreScale },
): Relevance {
  const top = max ?? best;
  const percent = top > 0 && score > 0 ? Math.min(100, Math.round((score / top) * 100)) : 0;
  const { strong, medium } = THRESHOLDS[scale];
  return { percent, label: percent >= strong ? "strong" : percent >= medium ? "medium" : "weak" };
}

/**
 * The scale of a search's scores, from the API's answer: a bounded score of 1 is a similarity, an
 * unbounded one BM25, anything else a fused score.
 *
 * @example scaleOf(null) // "bm25"
 */
export function scaleOf(maxScore: number | null): ScoreScale {
  if (maxScore === null) return "bm25";
  return maxScore === 1 ? "similarity" : "fused";
}

/**
 * The badge's words for a hit. A percentage is shown only where the mode's score measures a match
 * (BM25's share of the best, a similarity). A fused score is a sum of `weight / (k + rank)` over
 * rankings: its share says in which rankings a passage placed, not how well it matches, so there
 * the word alone is shown.
 *
 * @example relevanceText({ percent: 4, label: "weak" }, "fused") // "weak match"
 */
export function relevanceText(value: Relevance, scale: ScoreScale): string {
  return scale === "fused" ? `${value.label} match` : `${value.label} · ${value.percent}%`;
}
