import type { CredentialRow } from "./schema.ts";

/** The public view of a credential: never the key, only its hint. */
export function toCredentialJson(row: CredentialRow) {
  return {
    id: row.id,
    provider: row.provider,
    name: row.name,
    base_url: row.baseUrl,
    key_hint: row.keyHint,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}
