import { AsyncLocalStorage } from "node:async_hooks";

/** Where better-auth keeps its request, endpoint and transaction stores (one object per process). */
const BETTER_AUTH_GLOBAL = Symbol.for("better-auth:global");

let callsInFlight = 0;

/**
 * Runs one call into better-auth and, when no other is still running, switches its context stores
 * off again.
 *
 * Why: on Node 20 the first `AsyncLocalStorage.run` installs process-wide promise hooks that stay
 * until every store is disabled, so after a single sign-in every promise of every later request
 * (API-key requests and chat streams included) paid for context propagation: about a tenth of a
 * chat turn's CPU. better-auth needs its stores only while one of its calls runs (we configure no
 * background tasks, so its work ends with the call), and its next `run` enables them again.
 *
 * @example const response = await withAuthContext(() => auth.handler(request));
 */
export async function withAuthContext<T>(call: () => Promise<T>): Promise<T> {
  callsInFlight += 1;
  try {
    return await call();
  } finally {
    callsInFlight -= 1;
    if (callsInFlight === 0) for (const storage of betterAuthStores()) storage.disable();
  }
}

/** better-auth's stores that exist so far; none before its first call. */
export function betterAuthStores(): AsyncLocalStorage<unknown>[] {
  const shared = (globalThis as Record<symbol, { context?: Record<string, unknown> } | undefined>)[
    BETTER_AUTH_GLOBAL
  ];
  return Object.values(shared?.context ?? {}).filter(
    (value): value is AsyncLocalStorage<unknown> => value instanceof AsyncLocalStorage,
  );
}
