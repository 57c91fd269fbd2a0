import { type FormEvent, useState } from "react";
import type { Agent } from "../api/schema.gen.ts";
import { FeedbackLine } from "../apps/ConversationMessages.tsx";
import { Button, EmptyState, Field, FormError, Loading, QueryError, StatusBadge } from "../ui/ui.tsx";
import { type LoggedMessage, useAnnotate, useConversationDetail, useRateAnswer } from "./queries.ts";

/** A conversation as the logs show it: every message with its tool calls, ratings and timing, each answer rated or annotated in place. */
export function ConversationView({
  conversationId,
  agent,
}: {
  conversationId: string;
  agent: Agent | undefined;
}) {
  const detail = useConversationDetail(conversationId);
  const messages = detail.data?.messages ?? [];
  return (
    <div className="conversation-messages" data-testid="conversation-view">
      <QueryError query={detail} />
      {detail.isPending ? <Loading what="the conversation" /> : null}
      {detail.data && messages.length === 0 ? (
        <EmptyState title="No messages">
          <p>Every turn of this conversation failed before it was answered.</p>
        </EmptyState>
      ) : null}
      {detail.data?.has_more_messages ? <p className="muted">Showing the newest 1,000 messages.</p> : null}
      {messages.map((message, index) => (
        <div
          key={message.id}
          className={`bubble bubble-${message.role}`}
          data-testid={`log-message-${message.role}`}
        >
          <div className="bubble-text">{message.content}</div>
          {message.role === "assistant" ? (
            <Answer message={message} question={previousQuestion(messages, index)} agent={agent} />
          ) : null}
        </div>
      ))}
    </div>
  );
}

function previousQuestion(messages: LoggedMessage[], index: number): string {
  for (let i = index - 1; i >= 0; i--) if (messages[i]?.role === "user") return messages[i]?.content ?? "";
  return "";
}

function Answer({
  message,
  question,
  agent,
}: {
  message: LoggedMessage;
  question: string;
  agent: Agent | undefined;
}) {
  const rate = useRateAnswer();
  const [isAnnotating, setAnnotating] = useState(false);
  const team = message.feedback?.find((feedback) => feedback.source === "team");
  const toggle = (rating: "like" | "dislike") =>
    rate.mutate({ messageId: message.id, rating: team?.rating === rating ? null : rating });
  return (
    <div className="answer-details">
      {message.tool_calls.map((call) => (
        <details key={call.id} className="tool-call">
          <summary>
            Tool <code>{call.name}</code>
            {call.is_error ? " failed" : ""}
            {call.duration_ms ? ` · ${call.duration_ms} ms` : ""}
          </summary>
          <pre>{JSON.stringify({ input: call.input, output: call.output }, null, 2)}</pre>
        </details>
      ))}
      <div className="muted answer-meta">
        {message.source === "annotation" && message.annotation ? (
          <StatusBadge tone="ok">
            Annotation · similarity {message.annotation.similarity.toFixed(2)}
          </StatusBadge>
        ) : (
          <span>{message.model ?? "model"}</span>
        )}
        {message.latency_ms !== null ? <span> · {(message.latency_ms / 1000).toFixed(1)} s</span> : null}
        {message.usage ? (
          <span>
            {" "}
            · {message.usage.input_tokens} + {message.usage.output_tokens} tokens
          </span>
        ) : null}
        {message.citations.length > 0 ? <span> · {message.citations.length} citations</span> : null}
      </div>
      {message.feedback?.map((feedback) => (
        <FeedbackLine key={feedback.source} feedback={feedback} />
      ))}
      <div className="row answer-actions">
        <Button
          variant="secondary"
          aria-pressed={team?.rating === "like"}
          isBusy={rate.isPending}
          onClick={() => toggle("like")}
        >
          Good answer
        </Button>
        <Button
          variant="secondary"
          aria-pressed={team?.rating === "dislike"}
          isBusy={rate.isPending}
          onClick={() => toggle("dislike")}
        >
          Bad answer
        </Button>
        {agent ? (
          <Button
            variant="secondary"
            aria-expanded={isAnnotating}
            onClick={() => setAnnotating(!isAnnotating)}
          >
            Annotate
          </Button>
        ) : null}
      </div>
      <FormError error={rate.error} fields={[]} />
      {isAnnotating && agent ? (
        <AnnotateForm agent={agent} question={question} answer={message.content} messageId={message.id} />
      ) : null}
    </div>
  );
}

/** The question and a corrected answer, saved as an annotation of the agent. */
function AnnotateForm({
  agent,
  question: asked,
  answer: given,
  messageId,
}: {
  agent: Agent;
  question: string;
  answer: string;
  messageId: string;
}) {
  const annotate = useAnnotate();
  const [question, setQuestion] = useState(asked);
  const [answer, setAnswer] = useState(given);
  const isOn = agent.annotation_reply?.enabled === true;
  const [turnOn, setTurnOn] = useState(!isOn);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    annotate.mutate({ agent, question, answer, messageId, turnOn: !isOn && turnOn });
  };
  if (annotate.isSuccess) {
    return (
      <p className="annotate-done" role="status">
        Annotation saved: {agent.name} answers similar questions with it
        {isOn || turnOn ? "" : " once annotation replies are on"}.
      </p>
    );
  }
  return (
    <form className="card annotate-form" aria-label="Annotate" onSubmit={submit}>
      <Field label="Question">
        <textarea
          name="question"
          value={question}
          maxLength={4000}
          required
          onChange={(e) => setQuestion(e.target.value)}
        />
      </Field>
      <Field label="Answer" hint="What the agent should answer instead.">
        <textarea
          name="answer"
          value={answer}
          maxLength={32000}
          required
          onChange={(e) => setAnswer(e.target.value)}
        />
      </Field>
      {isOn ? null : (
        <label className="checkbox">
          <input type="checkbox" checked={turnOn} onChange={(e) => setTurnOn(e.target.checked)} /> Turn on
          annotation replies for {agent.name} (similar questions get this answer without calling the model)
        </label>
      )}
      <FormError error={annotate.error} fields={["question", "answer"]} />
      <div className="row">
        <Button type="submit" isBusy={annotate.isPending}>
          Save annotation
        </Button>
      </div>
    </form>
  );
}
