/**
 * pgvector's text form of a vector, `[0.1,0.2,…]`, to be cast with `::vector`. Apart from
 * vector-index.ts (and free of imports) so that the local embedder's thread can format its vectors.
 *
 * @example vectorLiteral([0.5, -0.25]) // "[0.5,-0.25]"
 */
export function vectorLiteral(values: readonly number[]): string {
  return `[${values.map((value) => (Number.isFinite(value) ? value : 0)).join(",")}]`;
}
