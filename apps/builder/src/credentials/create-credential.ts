import { type Clock, newId } from "@app/core";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { checkOutboundUrl, OutboundUrlError } from "../outbound/outbound-fetch.ts";
import { findProvider } from "../providers/catalogue.ts";
import { type CreateCredentialInput, HTTP_SECRET_KIND, REPLICATE_KIND } from "./contract.ts";
import { credentialContext, credentialKey, encryptSecret, keyHint } from "./encryption.ts";
import { CredentialErrors } from "./errors.ts";
import type { CredentialRow } from "./schema.ts";
import { credentials } from "./schema.ts";

/** The kinds that are not catalogue providers: their display name, and why they take no base_url. */
const OTHER_KINDS: Record<string, { name: string; noBaseUrl: string }> = {
  [HTTP_SECRET_KIND]: {
    name: "HTTP secret",
    noBaseUrl: "An HTTP secret has no base_url: the HTTP node names the URL.",
  },
  [REPLICATE_KIND]: {
    name: "Replicate",
    noBaseUrl: "A Replicate credential has no base_url: the server's REPLICATE_BASE_URL applies.",
  },
};

/**
 * Stores a provider key (a Replicate token, or an HTTP secret) for the workspace, encrypted; a
 * user-given base URL must pass the outbound-URL check first.
 *
 * @example const row = await createCredential(deps, workspaceId, { provider: "openai", api_key: "sk-…" });
 */
export async function createCredential(
  { db, clock, config }: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  workspaceId: string,
  input: CreateCredentialInput,
): Promise<CredentialRow> {
  const other = OTHER_KINDS[input.provider];
  const provider = other
    ? { id: input.provider, name: other.name, requires_base_url: false }
    : findProvider(input.provider);
  if (!provider) throw new Error(`provider ${input.provider} passed validation but is not in the catalogue`);
  if (provider.requires_base_url && !input.base_url)
    throw CredentialErrors.BASE_URL_REQUIRED({ param: "base_url" });
  if (other && input.base_url)
    throw CredentialErrors.BASE_URL_REFUSED({ message: other.noBaseUrl, param: "base_url" });
  let baseUrl: string | null = null;
  if (input.base_url) {
    try {
      const url = await checkOutboundUrl(input.base_url, { allowPrivate: config.allowPrivateUrls });
      baseUrl = url.toString().replace(/\/+$/, "");
    } catch (error) {
      if (error instanceof OutboundUrlError) {
        throw CredentialErrors.BASE_URL_REFUSED({ message: `base_url: ${error.message}`, param: "base_url" });
      }
      throw error;
    }
  }
  const now = clock.now();
  const id = newId("cred", now.getTime());
  const [row] = await db
    .insert(credentials)
    .values({
      id,
      workspaceId,
      provider: provider.id,
      name: input.name ?? (provider.id === HTTP_SECRET_KIND ? provider.name : `${provider.name} key`),
      baseUrl,
      encryptedKey: encryptSecret(
        credentialKey(config.secretKey),
        input.api_key,
        credentialContext({ workspaceId, id }),
      ),
      keyHint: keyHint(input.api_key),
      createdAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
