/**
 * Whether an error is PostgreSQL's unique_violation (23505), whichever driver (and drizzle wrapper)
 * reports it.
 *
 * @example if (isUniqueViolation(error)) throw Errors.SLUG_TAKEN();
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause) {
    if ((current as { code?: unknown }).code === "23505") return true;
  }
  return false;
}
