import { listQuerySchema } from "@app/http";
import { z } from "@hono/zod-openapi";
import { CONVERSATION_SOURCES, conversationSchema, messageSchema } from "../agents/chat-contract.ts";
import { RUN_STATUSES, RUN_TRIGGERS } from "../workflows/contract.ts";

const param = (name: string, description: string) => ({ param: { name, in: "query" as const }, description });

/** A date, or a time with its offset (ISO 8601); checked by pattern alone, so the document says all of it. */
const INSTANT =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d))?$/;

const instant = (name: string, description: string) =>
  z
    .string()
    .regex(
      INSTANT,
      "must be an ISO 8601 date (2026-03-01) or time with its offset (2026-03-01T09:00:00+07:00)",
    )
    .optional()
    .openapi(param(name, `${description}: an ISO 8601 time with its offset, or a date (midnight UTC)`));

/**
 * The instant an INSTANT names. Days past the month's end roll over (2026-02-31 is 3 March), as
 * `Date.UTC` does, rather than failing a value the pattern allowed.
 *
 * @example instantOf("2026-03-01T09:00:00+07:00") // 2026-03-01T02:00:00.000Z
 */
export function instantOf(text: string): Date {
  const [, year, month, day, time] = /^(\d{4})-(\d{2})-(\d{2})(?:T(.*))?$/.exec(text) ?? [];
  const midnight = Date.UTC(Number(year), Number(month) - 1, Number(day));
  if (!time) return new Date(midnight);
  const [, hours, minutes, seconds = "0", fraction = "", zone] =
    /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})$/.exec(time) ?? [];
  const offset =
    zone === "Z" || zone === undefined
      ? 0
      : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const milliseconds = Math.round(Number(`0.${fraction || "0"}`) * 1000);
  return new Date(
    midnight + ((Number(hours) * 60 + Number(minutes) - offset) * 60 + Number(seconds)) * 1000 + milliseconds,
  );
}

/** The filters every log shares: where it came from, who, when, and words in it. */
const sharedFilters = {
  app_id: z.string().max(64).optional().openapi(param("app_id", "Only those of this app's end users")),
  version: z
    .string()
    .regex(/^(draft|[1-9][0-9]{0,8})$/, "must be a version number or draft")
    .optional()
    .openapi(param("version", "Only those of this published version, or `draft` for the unpublished one")),
  end_user: z
    .string()
    .max(300)
    .optional()
    .openapi(
      param("end_user", "Only this end user's: their end_user_id, or the id your own site knows them by"),
    ),
  from: instant("from", "Only those started at or after this time"),
  to: instant("to", "Only those started before this time"),
  q: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi(param("q", "Only those holding this text (case-insensitive; `%` and `_` are taken literally)")),
};

const conversationFilters = {
  agent_id: z.string().max(64).optional().openapi(param("agent_id", "Only this agent's")),
  ...sharedFilters,
  source: z
    .enum(CONVERSATION_SOURCES)
    .optional()
    .openapi(param("source", "Only those held there: studio, api, app, mcp or workflow")),
  status: z
    .enum(["answered", "unanswered"])
    .optional()
    .openapi(
      param(
        "status",
        "`answered`: at least one answer stored; `unanswered`: none (every turn failed or was cut off)",
      ),
    ),
  feedback: z
    .enum(["like", "dislike", "any"])
    .optional()
    .openapi(param("feedback", "Only those holding an answer rated so (`any`: rated at all)")),
  feedback_source: z
    .enum(["user", "team"])
    .optional()
    .openapi(
      param("feedback_source", "With `feedback`: only ratings of the app's end users, or of the team"),
    ),
  annotated: z
    .enum(["true", "false"])
    .optional()
    .openapi(
      param("annotated", "Only those with (true) or without (false) an answer given by an annotation"),
    ),
};

const runFilters = {
  workflow_id: z.string().max(64).optional().openapi(param("workflow_id", "Only this workflow's")),
  ...sharedFilters,
  status: z.enum(RUN_STATUSES).optional().openapi(param("status", "Only runs in this state")),
  trigger: z
    .enum(RUN_TRIGGERS)
    .optional()
    .openapi(param("trigger", "Only runs started so: api, hook, tool, mcp, app or schedule")),
};

const exportFormat = {
  format: z
    .enum(["jsonl", "csv"])
    .default("jsonl")
    .openapi(
      param(
        "format",
        "`jsonl`: one JSON object a line; `csv`: UTF-8 with a byte order mark, CRLF lines, RFC 4180 quoting",
      ),
    ),
};

export const conversationLogQuery = listQuerySchema.extend(conversationFilters);
export const conversationExportQuery = z.object({ ...conversationFilters, ...exportFormat });
export const runLogQuery = listQuerySchema.extend(runFilters);
export const runExportQuery = z.object({ ...runFilters, ...exportFormat });

export type ConversationLogQuery = z.infer<typeof conversationExportQuery>;
export type RunLogQuery = z.infer<typeof runExportQuery>;

const endUserSchema = z
  .object({
    id: z.string(),
    kind: z.enum(["anonymous", "customer"]),
    external_id: z.string().openapi({ description: "Your own user id (customer), or our anonymous id" }),
    name: z.string().nullable(),
  })
  .openapi("LoggedEndUser");

export const loggedConversationSchema = conversationSchema
  .extend({
    end_user: endUserSchema.nullable(),
    message_count: z.number().int(),
    likes: z.number().int().openapi({ description: "Answers rated like, by end users and the team" }),
    dislikes: z.number().int(),
    last_message_at: z.string().nullable(),
  })
  .openapi("LoggedConversation");

export const conversationDetailSchema = loggedConversationSchema
  .extend({
    messages: z.array(messageSchema).openapi({
      description:
        "Oldest first, with tool calls, citations, ratings (`feedback`), who answered (`source`, `annotation`) and `latency_ms`; the newest 1,000",
    }),
    has_more_messages: z
      .boolean()
      .openapi({ description: "Older messages than those shown exist: page them at /messages" }),
  })
  .openapi("ConversationDetail");

export const teamFeedbackBody = z
  .object({
    rating: z
      .enum(["like", "dislike"])
      .nullable()
      .openapi({ description: "null takes the team's rating back" }),
    comment: z.string().max(2000).optional(),
  })
  .strict()
  .openapi("TeamFeedbackRequest");

export const teamFeedbackSchema = z
  .object({
    message_id: z.string(),
    source: z.literal("team"),
    rating: z.enum(["like", "dislike"]).nullable(),
    comment: z.string().nullable(),
  })
  .openapi("TeamFeedback");

/** Columns of a CSV export of messages, in order (JSONL lines carry the same fields, and tool calls whole). */
export const MESSAGE_EXPORT_COLUMNS = [
  "conversation_id",
  "message_id",
  "created_at",
  "agent_id",
  "app_id",
  "end_user_id",
  "conversation_source",
  "title",
  "role",
  "content",
  "answered_by",
  "annotation_id",
  "annotation_similarity",
  "tool_calls",
  "provider",
  "model",
  "version",
  "finish_reason",
  "input_tokens",
  "output_tokens",
  "latency_ms",
  "user_rating",
  "user_comment",
  "team_rating",
  "team_comment",
] as const;

/** Columns of a CSV export of runs, in order; inputs, outputs and error are JSON text. */
export const RUN_EXPORT_COLUMNS = [
  "run_id",
  "workflow_id",
  "status",
  "trigger",
  "version",
  "app_id",
  "end_user_id",
  "started_at",
  "finished_at",
  "elapsed_ms",
  "steps",
  "input_tokens",
  "output_tokens",
  "inputs",
  "outputs",
  "error_code",
  "error_message",
] as const;
