import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError, allPages } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { Message as ApiMessage, Conversation } from "../api/schema.gen.ts";
import { postEventStream } from "../api/sse.ts";
import type { Agent } from "../api/types.ts";
import { Button, ErrorBox, LoadMore, MissingKey, QueryError } from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { type Citation, Citations } from "./Citations.tsx";

/** A tool call as shown: while the answer streams, its result (and so `is_error`) may not be in yet. */
type ToolCall = Omit<ApiMessage["tool_calls"][number], "is_error"> & { is_error?: boolean };

/** A message as shown: an answer still streaming has only what arrived so far. */
type Message = Pick<ApiMessage, "id" | "role" | "content"> & {
  tool_calls: ToolCall[];
  citations?: Citation[];
};

/** Chat with an agent: answers stream in, tool calls show inline, past conversations can be reopened. */
export function AgentChat({ agentId }: { agentId: string }) {
  const client = useQueryClient();
  const conversations = usePagedList<Conversation>(
    ["conversations", agentId],
    `/api/agents/${agentId}/conversations`,
  );
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [isSending, setSending] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => () => abort.current?.abort(), []);
  // Braces matter: newer browsers return a promise from scrollIntoView, and React would call it on cleanup.
  const lastLength = messages.at(-1)?.content.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever a message is added or grows
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [messages.length, lastLength]);

  const open = async (id: string) => {
    setConversationId(id);
    const page = await allPages<ApiMessage>(`/api/conversations/${id}/messages`);
    setMessages([...page.data].reverse());
  };

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || isSending) return;
    setDraft("");
    setError(null);
    setSending(true);
    const reply: Message = { id: `pending-${Date.now()}`, role: "assistant", content: "", tool_calls: [] };
    setMessages((current) => [
      ...current,
      { id: `user-${Date.now()}`, role: "user", content: text, tool_calls: [] },
      reply,
    ]);
    const update = (change: (message: Message) => Message) =>
      setMessages((current) =>
        current.map((message) => (message.id === reply.id ? change(message) : message)),
      );
    abort.current = new AbortController();
    try {
      await postEventStream(
        `/api/agents/${agentId}/chat`,
        { message: text, ...(conversationId ? { conversation_id: conversationId } : {}) },
        ({ event, data }) => {
          if (event === "conversation") setConversationId(String(data.id));
          if (event === "text_delta") update((m) => ({ ...m, content: m.content + String(data.text ?? "") }));
          if (event === "tool_call") {
            update((m) => ({
              ...m,
              tool_calls: [
                ...m.tool_calls,
                { id: String(data.id), name: String(data.name), input: data.input },
              ],
            }));
          }
          if (event === "tool_result") {
            update((m) => ({
              ...m,
              tool_calls: m.tool_calls.map((call) =>
                call.id === data.id
                  ? { ...call, output: data.output, is_error: Boolean(data.is_error) }
                  : call,
              ),
            }));
          }
          if (event === "finish" && Array.isArray(data.citations))
            update((m) => ({ ...m, citations: data.citations as Citation[] }));
          if (event === "error") {
            const failure = data.error as { code?: string; message?: string } | undefined;
            // Kept as an ApiError with its code, so a missing key shows where to add one.
            setError(
              new ApiError(200, failure?.code ?? "chat_failed", failure?.message ?? "The answer failed."),
            );
          }
        },
        abort.current.signal,
      );
      void client.invalidateQueries({ queryKey: ["conversations", agentId] });
    } catch (caught) {
      if (!(caught instanceof DOMException && caught.name === "AbortError")) setError(caught);
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="chat card" aria-label="Chat">
      <div className="chat-header">
        <h2>Chat</h2>
        <select
          aria-label="Conversation"
          value={conversationId ?? ""}
          onChange={(e) => {
            if (e.target.value) void open(e.target.value);
            else {
              setConversationId(null);
              setMessages([]);
            }
          }}
        >
          <option value="">New conversation</option>
          {conversations.data?.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title || c.id}
            </option>
          ))}
        </select>
        <LoadMore query={conversations} what="conversations" />
      </div>
      <div className="chat-log" aria-live="polite">
        {messages.length === 0 ? <p className="muted">Ask the agent something.</p> : null}
        {messages.map((message) => (
          <div
            key={message.id}
            className={`bubble bubble-${message.role}`}
            data-testid={`message-${message.role}`}
          >
            {message.tool_calls.map((call) => (
              <details key={call.id} className="tool-call" data-testid="tool-call">
                <summary>
                  Tool <code>{call.name}</code>{" "}
                  {call.output === undefined ? "…" : call.is_error ? "failed" : "done"}
                </summary>
                <pre>{JSON.stringify({ input: call.input, output: call.output }, null, 2)}</pre>
              </details>
            ))}
            {message.content ? <div className="bubble-text">{message.content}</div> : null}
            {message.citations?.length ? <Citations citations={message.citations} /> : null}
          </div>
        ))}
        <div ref={bottom} />
      </div>
      <QueryError query={conversations} />
      {error instanceof ApiError && error.code === "provider_not_configured" ? (
        <MissingKey
          message={error.message}
          provider={client.getQueryData<Agent>(["agents", agentId])?.provider}
        />
      ) : (
        <ErrorBox error={error} />
      )}
      <form className="chat-input" onSubmit={send}>
        <textarea
          aria-label="Message"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <Guarded>
          <Button type="submit" isBusy={isSending}>
            Send
          </Button>
        </Guarded>
      </form>
    </section>
  );
}
