import type { Clock } from "@app/core";
import { and, desc, eq } from "drizzle-orm";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { credentialContext, credentialKey, decryptSecret } from "./encryption.ts";
import { CredentialErrors } from "./errors.ts";
import type { CredentialRow } from "./schema.ts";
import { credentials } from "./schema.ts";

/** Writing `last_used_at` on every use would add a write per call; once a minute is enough. */
const LAST_USED_RESOLUTION_MS = 60_000;

type CredentialDeps = { db: BuilderDb; clock: Clock; config: BuilderConfig };

/**
 * The plaintext of a stored credential, marking it used. 500 when it cannot be decrypted (the
 * master key changed): the message says how to recover.
 *
 * @example const apiKey = await openCredential(deps, row);
 */
export async function openCredential(
  { db, clock, config }: CredentialDeps,
  row: CredentialRow,
): Promise<string> {
  let secret: string;
  try {
    secret = decryptSecret(credentialKey(config.secretKey), row.encryptedKey, credentialContext(row));
  } catch {
    throw CredentialErrors.CREDENTIAL_UNREADABLE();
  }
  const now = clock.now();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(credentials).set({ lastUsedAt: now }).where(eq(credentials.id, row.id));
  }
  return secret;
}

/**
 * The secret of the workspace's credential with this id, of any kind (an HTTP node may send a
 * provider key to the provider's own API); 404 when the workspace has no such credential.
 *
 * @example const token = await readCredentialSecret(deps, "ws_1", "cred_1");
 */
export async function readCredentialSecret(
  deps: CredentialDeps,
  workspaceId: string,
  credentialId: string,
): Promise<string> {
  const [row] = await deps.db
    .select()
    .from(credentials)
    .where(and(eq(credentials.workspaceId, workspaceId), eq(credentials.id, credentialId)))
    .limit(1);
  if (!row) throw CredentialErrors.CREDENTIAL_NOT_FOUND({ message: `No credential ${credentialId}.` });
  return openCredential(deps, row);
}

/**
 * The secret of the workspace's credential of one kind, for a feature that picks its own fallback
 * (Replicate falls back to the server-wide token): with `credentialId`, that credential if it still
 * exists and is of this kind; otherwise the newest of this kind. Undefined when there is none.
 *
 * @example const found = await findCredentialSecret(deps, "ws_1", { kind: "replicate" }); // { credentialId, secret } | undefined
 */
export async function findCredentialSecret(
  deps: CredentialDeps,
  workspaceId: string,
  wanted: { kind: string; credentialId?: string | undefined },
): Promise<{ credentialId: string; secret: string } | undefined> {
  const [row] = await deps.db
    .select()
    .from(credentials)
    .where(
      and(
        eq(credentials.workspaceId, workspaceId),
        eq(credentials.provider, wanted.kind),
        wanted.credentialId ? eq(credentials.id, wanted.credentialId) : undefined,
      ),
    )
    .orderBy(desc(credentials.id))
    .limit(1);
  if (!row) return undefined;
  return { credentialId: row.id, secret: await openCredential(deps, row) };
}
