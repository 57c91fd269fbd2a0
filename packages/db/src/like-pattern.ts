/**
 * A LIKE / ILIKE pattern matching values that contain `text` as it is: `%`, `_` and `\` in it are
 * escaped (backslash is PostgreSQL's default LIKE escape), so a search for "50%" finds "50%" only.
 *
 * @example db.select().from(annotations).where(ilike(annotations.question, containsPattern("50%_off")))
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
