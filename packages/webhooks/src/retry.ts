/** The seed's retry delays, one per failed attempt, in order. */
export const RETRY_DELAYS_MS: readonly number[] = [
  60_000, // 1 minute
  5 * 60_000, // 5 minutes
  30 * 60_000, // 30 minutes
  2 * 3_600_000, // 2 hours
  6 * 3_600_000, // 6 hours
  24 * 3_600_000, // 24 hours
];

/**
 * When to try again after the `failureCount`-th failed attempt of a series, or null when the
 * sixth retry (the seventh attempt) has failed and the delivery is parked.
 *
 * @example nextAttemptAfterFailure(1, new Date(0)) // 1970-01-01T00:01:00Z
 */
export function nextAttemptAfterFailure(failureCount: number, failedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[failureCount - 1];
  if (delay === undefined) return null;
  return new Date(failedAt.getTime() + delay);
}
