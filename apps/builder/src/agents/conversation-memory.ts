import { type ModelMessage, modelMessageSchema } from "ai";
import { z } from "zod";

const storedModelMessages = z.array(modelMessageSchema);

/** A stored message as the window needs it; `modelMessages` is checked before it is replayed. */
interface MemoryRow {
  role: string;
  content: string;
  modelMessages: unknown;
  createdAt: Date;
}

/**
 * A conversation's memory window from its newest stored rows (newest first, at most two a turn):
 * the last `turns` turns as model messages, oldest first, and the newest row's time. An assistant
 * turn replays its stored tool calls and results, so the model remembers what it did.
 *
 * @example const { history, lastAt } = memoryWindow(newestRows, agent.memoryTurns);
 */
export function memoryWindow(
  rows: MemoryRow[],
  turns: number,
): { history: ModelMessage[]; lastAt: Date | null } {
  const lastAt = rows[0]?.createdAt ?? null;
  if (turns === 0) return { history: [], lastAt };
  const ordered = rows.slice(0, turns * 2).reverse();
  // A window that starts on an assistant row would answer a question the model never sees.
  while (ordered[0] && ordered[0].role !== "user") ordered.shift();
  const history: ModelMessage[] = [];
  for (const row of ordered) {
    if (row.role === "user") {
      history.push({ role: "user", content: row.content });
      continue;
    }
    const parsed = storedModelMessages.safeParse(row.modelMessages);
    if (parsed.success && parsed.data.length > 0) history.push(...parsed.data);
    else history.push({ role: "assistant", content: row.content });
  }
  return { history, lastAt };
}
