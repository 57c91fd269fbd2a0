import { EmptyState, formatDate, Loading, LoadMore, QueryError, StatusBadge } from "../ui/ui.tsx";
import { type Message, useConversationMessages } from "./queries.ts";

type Feedback = NonNullable<Message["feedback"]>[number];

/** One conversation's messages, each answer with the ratings and comments it got. */
export function ConversationMessages({ conversationId }: { conversationId: string }) {
  const messages = useConversationMessages(conversationId);
  return (
    <div className="conversation-messages" data-testid="conversation-messages">
      <QueryError query={messages} />
      {messages.isPending ? <Loading what="messages" /> : null}
      {messages.data?.length === 0 ? <EmptyState title="No messages" /> : null}
      {/* The API pages newest first; "Load more" brings earlier messages, shown above. */}
      <LoadMore query={messages} what="earlier messages" />
      {[...(messages.data ?? [])].reverse().map((message) => (
        <div
          key={message.id}
          className={`bubble bubble-${message.role}`}
          data-testid={`app-message-${message.role}`}
        >
          <div className="bubble-text">{message.content}</div>
          {message.feedback?.map((feedback) => (
            <FeedbackLine key={feedback.source} feedback={feedback} />
          ))}
        </div>
      ))}
    </div>
  );
}

export function FeedbackLine({ feedback }: { feedback: Feedback }) {
  const who = feedback.source === "user" ? "End user" : "Team";
  return (
    <div className="feedback" data-testid="feedback">
      <StatusBadge tone={feedback.rating === "like" ? "ok" : "danger"}>
        {feedback.rating === "like" ? "Liked" : "Disliked"}
      </StatusBadge>{" "}
      <span className="muted">
        {who}, {formatDate(feedback.updated_at)}
      </span>
      {feedback.comment ? <blockquote>{feedback.comment}</blockquote> : null}
    </div>
  );
}
