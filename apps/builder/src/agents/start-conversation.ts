import { type Clock, newId } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import type { ConversationRow } from "./conversation-json.ts";
import { conversations } from "./schema.ts";

const TITLE_LENGTH = 80;

/**
 * A new conversation with an agent, titled after its first message. The row is known at once;
 * `stored` settles when it is written, so a turn can call the model meanwhile (the insert is
 * off the path to the first token) and wait for it only before storing messages.
 *
 * @example const { row, stored } = startConversation(deps, workspaceId, agentId, "How do refunds work?");
 */
export function startConversation(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  firstMessage: string,
): { row: ConversationRow; stored: Promise<void> } {
  const now = clock.now();
  const oneLine = firstMessage.replace(/\s+/g, " ").trim();
  const title = oneLine.length > TITLE_LENGTH ? `${oneLine.slice(0, TITLE_LENGTH - 1)}…` : oneLine;
  const row: ConversationRow = {
    id: newId("conv", now.getTime()),
    workspaceId,
    agentId,
    title: title || "New conversation",
    createdAt: now,
    updatedAt: now,
  };
  // Begun on the loop's next turn, once the turn's model request has gone out: the insert's
  // system call and round trip then stay off the path to the first token too.
  const stored = new Promise((resolve) => setImmediate(resolve)).then(async () => {
    await db.insert(conversations).values(row);
  });
  // Awaited later by the turn; without this an early failure would be an unhandled rejection.
  stored.catch(() => {});
  return { row, stored };
}
