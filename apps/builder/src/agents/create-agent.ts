import { type Clock, newId } from "@app/core";
import { CommonErrors } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import { configuredProvider } from "../credentials/configured-provider.ts";
import type { BuilderDb } from "../db/index.ts";
import { defaultChatModel, PROVIDER_IDS } from "../providers/catalogue.ts";
import type { CreateAgentInput } from "./contract.ts";
import type { AgentRow } from "./schema.ts";
import { agents } from "./schema.ts";

/**
 * Creates an agent. Without a provider it gets the workspace's configured one (else the catalogue's
 * first), without a model that provider's first chat model: a default of OpenAI failed the first message of a workspace whose only
 * key is another provider's.
 *
 * @example const row = await createAgent(deps, workspaceId, { name: "Support", ...defaults });
 */
export async function createAgent(
  { db, clock, config }: { db: BuilderDb; clock: Clock; config: Pick<BuilderConfig, "providerKeys"> },
  workspaceId: string,
  input: CreateAgentInput,
): Promise<AgentRow> {
  // With no key set up yet, the catalogue's first provider: an agent may be drafted before its key is
  // added, and its first message then says which key is missing.
  const provider =
    input.provider ?? (await configuredProvider({ db, config }, workspaceId)) ?? PROVIDER_IDS[0] ?? "openai";
  const model = input.model ?? defaultChatModel(provider);
  if (!model) throw refused("model", `name a model: ${provider} lists none to default to`);
  const now = clock.now();
  const [row] = await db
    .insert(agents)
    .values({
      id: newId("agt", now.getTime()),
      workspaceId,
      name: input.name,
      description: input.description,
      provider,
      model,
      instructions: input.instructions,
      temperature: input.temperature,
      tools: input.tools,
      knowledgeBaseIds: input.knowledge_base_ids,
      memoryTurns: input.memory_turns,
      mcpExposed: input.mcp_exposed,
      evaluationGate: input.evaluation_gate,
      annotationReply: input.annotation_reply,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

function refused(path: string, message: string) {
  return CommonErrors.VALIDATION_FAILED({
    message: `Invalid body. ${path}: ${message}`,
    param: path,
    details: [{ path, message }],
  });
}
