import type { toEvaluationRowJson } from "./evaluation-json.ts";

type RowJson = ReturnType<typeof toEvaluationRowJson>;

/**
 * Two evaluations' rows side by side by dataset position, each with what changed: the score went up
 * (`improved`) or down (`regressed`), only the output changed (`output_changed`), nothing did
 * (`unchanged`), or one side has no such row (`missing`, when the datasets differ).
 *
 * @example const rows = compareRows(aRows, bRows);
 */
export function compareRows(a: RowJson[], b: RowJson[]) {
  const byPosition = new Map<number, { a: RowJson | null; b: RowJson | null }>();
  for (const row of a) byPosition.set(row.position, { a: row, b: null });
  for (const row of b) byPosition.set(row.position, { a: byPosition.get(row.position)?.a ?? null, b: row });
  return [...byPosition.entries()]
    .sort(([x], [y]) => x - y)
    .map(([position, pair]) => {
      const shown = pair.b ?? pair.a;
      const scoreDelta =
        pair.a?.score != null && pair.b?.score != null
          ? Math.round((pair.b.score - pair.a.score) * 10_000) / 10_000
          : null;
      return {
        position,
        input: shown?.input ?? null,
        inputs: shown?.inputs ?? null,
        expected: shown?.expected ?? null,
        a: pair.a,
        b: pair.b,
        change: changeOf(pair.a, pair.b, scoreDelta),
        score_delta: scoreDelta,
      };
    });
}

function changeOf(a: RowJson | null, b: RowJson | null, delta: number | null) {
  if (!a || !b) return "missing" as const;
  if (delta !== null && delta > 0) return "improved" as const;
  if (delta !== null && delta < 0) return "regressed" as const;
  if (a.output !== b.output) return "output_changed" as const;
  return "unchanged" as const;
}
