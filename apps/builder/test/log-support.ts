import { queryRows } from "@app/db";
import { sql } from "drizzle-orm";
import type { BuilderDb } from "../src/db/index.ts";

/**
 * Seeds `count` messages in bulk SQL (generate_series): conversations of `perConversation` messages,
 * alternately a question and an answer, each `contentLength` characters with commas, quotes and a
 * line break in them, every tenth answer disliked by its end user. For the export's memory test and
 * the export bench, where going through the chat would take hours.
 *
 * @example await seedMessages(db, { workspaceId, agentId, count: 100_000 });
 */
export async function seedMessages(
  db: BuilderDb,
  options: {
    workspaceId: string;
    agentId: string;
    count: number;
    perConversation?: number;
    contentLength?: number;
    /** Rows per statement: large seeds in steps keep each statement's memory small. */
    step?: number;
  },
): Promise<void> {
  const perConversation = options.perConversation ?? 10;
  const filler = 'He said "yes, later",\nthen 東京. '.repeat(Math.ceil((options.contentLength ?? 200) / 30));
  const content = filler.slice(0, options.contentLength ?? 200);
  const step = options.step ?? 100_000;
  const conversations = Math.ceil(options.count / perConversation);
  for (let first = 1; first <= conversations; first += step) {
    const last = Math.min(conversations, first + step - 1);
    await queryRows(
      db,
      sql`insert into conversations (id, workspace_id, agent_id, title, source, created_at, updated_at)
        select 'conv_seed' || lpad(i::text, 10, '0'), ${options.workspaceId}, ${options.agentId},
          'Seeded ' || i, 'api', timestamptz '2026-01-01' + i * interval '1 second',
          timestamptz '2026-01-01' + i * interval '1 second'
        from generate_series(${first}::int, ${last}::int) as i`,
    );
  }
  for (let first = 1; first <= options.count; first += step) {
    const last = Math.min(options.count, first + step - 1);
    await queryRows(
      db,
      sql`insert into messages (id, workspace_id, conversation_id, role, content, source, created_at)
        select 'msg_seed' || lpad(i::text, 10, '0'), ${options.workspaceId},
          'conv_seed' || lpad(((i - 1) / ${perConversation} + 1)::text, 10, '0'),
          case when i % 2 = 1 then 'user' else 'assistant' end, ${content} || ' #' || i,
          case when i % 2 = 0 then 'model' end, timestamptz '2026-01-01' + i * interval '1 millisecond'
        from generate_series(${first}::int, ${last}::int) as i`,
    );
    await queryRows(
      db,
      sql`insert into message_feedback (message_id, source, workspace_id, rating, comment, created_at, updated_at)
        select 'msg_seed' || lpad(i::text, 10, '0'), 'user', ${options.workspaceId}, 'dislike', 'Wrong, "again"',
          now(), now()
        from generate_series(${first}::int, ${last}::int) as i where i % 20 = 0`,
    );
  }
}
