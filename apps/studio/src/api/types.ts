// The studio's names for the API's answers; the shapes come from the builder's OpenAPI document
// (schema.gen.ts, `npm run api-types`).
import type { ApiOperations, Provider, SessionResult } from "./schema.gen.ts";

export type { Agent, ApiKey, Provider, User } from "./schema.gen.ts";
export type ProviderModel = Provider["models"][number];
/** A signed-in session (the answer of get-session when there is one). */
export type Session = NonNullable<SessionResult>;

/**
 * The success answer of an operation, for answers the document does not name.
 *
 * @example api<Answer<"GET /api/providers">>("/api/providers")
 */
export type Answer<Operation extends keyof ApiOperations> = ApiOperations[Operation]["response"];
