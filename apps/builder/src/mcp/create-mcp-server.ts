import { type Clock, newId } from "@app/core";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import { checkOutboundUrl, OutboundUrlError } from "../outbound/outbound-fetch.ts";
import type { CreateMcpServerInput } from "./contract.ts";
import { McpErrors } from "./errors.ts";
import { type McpSecrets, sealMcpJson } from "./mcp-secrets.ts";
import { type McpServerRow, mcpServers } from "./schema.ts";

/**
 * Stores a connection to a remote MCP server; its URL must pass the outbound-URL policy (checked
 * again on every request), its token and headers are stored encrypted. Nothing is sent to the
 * server: `checkMcpServer` does that.
 *
 * @example const row = await createMcpServer(deps, "ws_1", { name: "Docs", url: "https://mcp.example.com/mcp", transport: "auto" });
 */
export async function createMcpServer(
  { db, clock, config }: { db: BuilderDb; clock: Clock; config: BuilderConfig },
  workspaceId: string,
  input: CreateMcpServerInput,
): Promise<McpServerRow> {
  let url: URL;
  try {
    url = await checkOutboundUrl(input.url, { allowPrivate: config.allowPrivateUrls });
  } catch (error) {
    if (error instanceof OutboundUrlError)
      throw McpErrors.MCP_URL_REFUSED({ message: `url: ${error.message}`, param: "url" });
    throw error;
  }
  const now = clock.now();
  const id = newId("mcp", now.getTime());
  const headers = input.headers ?? {};
  const hasHeaders = Object.keys(headers).length > 0;
  const secrets: McpSecrets = {
    ...(input.bearer_token ? { bearer_token: input.bearer_token } : {}),
    ...(hasHeaders ? { headers } : {}),
  };
  const hasSecrets = input.bearer_token !== undefined || hasHeaders;
  const [row] = await db
    .insert(mcpServers)
    .values({
      id,
      workspaceId,
      name: input.name,
      url: url.toString(),
      transport: input.transport,
      authType: input.oauth ? "oauth" : input.bearer_token ? "bearer" : hasHeaders ? "headers" : "none",
      encryptedSecrets: hasSecrets ? sealMcpJson(config, { workspaceId, id }, "secrets", secrets) : null,
      headerNames: Object.keys(headers),
      secretHint:
        input.bearer_token && input.bearer_token.length >= 12 ? `…${input.bearer_token.slice(-4)}` : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}
