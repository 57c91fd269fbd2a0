import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type {
  Agent,
  Annotation,
  ConversationDetail,
  LoggedConversation,
  TeamFeedback,
  WorkflowRun,
} from "../api/schema.gen.ts";

export type { ConversationDetail, LoggedConversation } from "../api/schema.gen.ts";
export type LoggedMessage = ConversationDetail["messages"][number];

/** The Logs screen's filters; an empty string leaves that filter out. */
export interface LogFilter {
  /** An agent's id on the conversations tab, a workflow's on the runs tab. */
  target: string;
  source: string;
  status: string;
  feedback: string;
  endUser: string;
  q: string;
  /** Dates (YYYY-MM-DD) from the date inputs: `from` includes its day, `to` too. */
  from: string;
  to: string;
}

export const EMPTY_FILTER: LogFilter = {
  target: "",
  source: "",
  status: "",
  feedback: "",
  endUser: "",
  q: "",
  from: "",
  to: "",
};

/**
 * The query string of a filter for `/api/conversations` or `/api/runs` (and their exports).
 *
 * @example logQuery("conversations", { ...EMPTY_FILTER, feedback: "dislike" }) // "feedback=dislike"
 */
export function logQuery(kind: "conversations" | "runs", filter: LogFilter): string {
  const params = new URLSearchParams();
  if (filter.target) params.set(kind === "conversations" ? "agent_id" : "workflow_id", filter.target);
  if (filter.source) params.set(kind === "conversations" ? "source" : "trigger", filter.source);
  if (filter.status) params.set("status", filter.status);
  if (kind === "conversations" && filter.feedback) params.set("feedback", filter.feedback);
  if (filter.endUser.trim()) params.set("end_user", filter.endUser.trim());
  if (filter.q.trim()) params.set("q", filter.q.trim());
  if (filter.from) params.set("from", filter.from);
  // The date input's day is included: the API's `to` is exclusive, so the next day's midnight.
  if (filter.to) params.set("to", nextDay(filter.to));
  return params.toString();
}

function nextDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

export function useConversationLogs(filter: LogFilter) {
  const query = logQuery("conversations", filter);
  return usePagedList<LoggedConversation>(["logs", "conversations", query], `/api/conversations?${query}`);
}

export function useRunLogs(filter: LogFilter) {
  const query = logQuery("runs", filter);
  return usePagedList<WorkflowRun>(["logs", "runs", query], `/api/runs?${query}`);
}

export function useConversationDetail(id: string) {
  return useQuery({
    queryKey: ["logs", "conversation", id],
    queryFn: () => api<ConversationDetail>(`/api/conversations/${id}`),
  });
}

/** The team's rating of an answer (null takes it back); the logs read their ratings again. */
export function useRateAnswer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ messageId, rating }: { messageId: string; rating: "like" | "dislike" | null }) =>
      api<TeamFeedback>(`/api/messages/${messageId}/feedback`, { json: { rating } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["logs"] }),
  });
}

/**
 * Saves a question → answer pair on the agent, and turns annotation replies on when asked, so the
 * next similar question gets this answer.
 */
export function useAnnotate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: {
      agent: Agent;
      question: string;
      answer: string;
      messageId: string;
      turnOn: boolean;
    }) => {
      const annotation = await api<Annotation>(`/api/agents/${input.agent.id}/annotations`, {
        json: { question: input.question, answer: input.answer, message_id: input.messageId },
      });
      if (input.turnOn) {
        const setting = input.agent.annotation_reply;
        await api<Agent>(`/api/agents/${input.agent.id}`, {
          method: "PATCH",
          json: {
            annotation_reply: {
              enabled: true,
              threshold: setting?.threshold ?? 0.9,
              ...(setting ? { embedding: setting.embedding } : {}),
            },
          },
        });
      }
      return annotation;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ["agents"] }),
  });
}
