import type { BuilderConfig } from "../config.ts";
import { credentialKey, decryptSecret, encryptSecret } from "../credentials/encryption.ts";
import { McpErrors } from "./errors.ts";
import type { McpServerRow } from "./schema.ts";

/** What a connection sends with every request. */
export interface McpSecrets {
  bearer_token?: string;
  headers?: Record<string, string>;
}

/**
 * Bound to the row like a credential, under a prefix of its own so a credential's ciphertext and
 * an MCP server's can never stand in for each other.
 */
function context(row: { workspaceId: string; id: string }, part: "secrets" | "oauth"): string {
  return `mcp/${part}/${row.workspaceId}/${row.id}`;
}

/**
 * Encrypts a connection's secrets (or its OAuth state) for its row.
 *
 * @example const sealed = sealMcpJson(config, { workspaceId, id }, "secrets", { bearer_token: "t" });
 */
export function sealMcpJson(
  config: Pick<BuilderConfig, "secretKey">,
  row: { workspaceId: string; id: string },
  part: "secrets" | "oauth",
  value: unknown,
): string {
  return encryptSecret(credentialKey(config.secretKey), JSON.stringify(value), context(row, part));
}

/**
 * Decrypts what `sealMcpJson` sealed; a 500 naming the fix when the master key changed.
 *
 * @example const secrets = openMcpJson<McpSecrets>(config, row, "secrets", row.encryptedSecrets);
 */
export function openMcpJson<T>(
  config: Pick<BuilderConfig, "secretKey">,
  row: Pick<McpServerRow, "workspaceId" | "id">,
  part: "secrets" | "oauth",
  sealed: string | null,
): T | undefined {
  if (!sealed) return undefined;
  try {
    return JSON.parse(decryptSecret(credentialKey(config.secretKey), sealed, context(row, part))) as T;
  } catch {
    throw McpErrors.MCP_SECRETS_UNREADABLE();
  }
}

/**
 * The headers a connection sends: its custom headers and its bearer token.
 *
 * @example const headers = connectionHeaders(openMcpJson(config, row, "secrets", row.encryptedSecrets));
 */
export function connectionHeaders(secrets: McpSecrets | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...secrets?.headers };
  if (secrets?.bearer_token) headers.authorization = `Bearer ${secrets.bearer_token}`;
  return headers;
}
