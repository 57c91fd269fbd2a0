/** How a search hit compares, in words a person reads at a glance. */
export type RelevanceLabel = "strong" | "medium" | "weak";

export interface Relevance {
  /** 0–100: the hit's score as a share of the best score this search found in the same mode. */
  percent: number;
  label: RelevanceLabel;
}

/**
 * A hit's relevance against the best hit of its own list. Each mode scores on its own scale (BM25
 * is unbounded, cosine similarity runs to 1, a fused score is a sum of 1/(k + rank) terms near
 * 0.03), so raw scores cannot be compared across modes or read on their own; a share of the
 * list's best can. Strong is within 70 % of the best, medium within 40 %.
 *
 * @example relevance(0.0164, 0.0328) // { percent: 50, label: "medium" }
 */
export function relevance(score: number, best: number): Relevance {
  const percent = best > 0 && score > 0 ? Math.min(100, Math.round((score / best) * 100)) : 0;
  return { percent, label: percent >= 70 ? "strong" : percent >= 40 ? "medium" : "weak" };
}

/**
 * The badge's words for a hit. A percentage is shown only where the mode's score measures a match
 * (BM25, a provider model's cosine similarity). A fused score (hybrid search; vector search with the
 * local embedder, which is anchored by BM25) is a sum of `weight / (k + rank)` over rankings: its
 * share of the best says in which lists a passage ranked, not how well it matches. A passage found
 * only by the local embedder's ranking, which weighs 0.05, read "weak · 4%" at rank 2, so there
 * the word alone is shown.
 *
 * @example relevanceText(relevance(0.0042, 0.0955), { isFused: true }) // "weak match"
 */
export function relevanceText(value: Relevance, { isFused }: { isFused: boolean }): string {
  return isFused ? `${value.label} match` : `${value.label} · ${value.percent}%`;
}
