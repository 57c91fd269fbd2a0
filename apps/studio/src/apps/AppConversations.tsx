import { type FormEvent, Fragment, useState } from "react";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  Field,
  formatDate,
  Loading,
  LoadMore,
  QueryError,
} from "../ui/ui.tsx";
import { ConversationMessages } from "./ConversationMessages.tsx";
import {
  type AppConversation,
  type ConversationFilter,
  type Rating,
  useAppConversations,
} from "./queries.ts";

const RATINGS: { value: Rating | "all"; label: string }[] = [
  { value: "all", label: "All" },
  { value: "like", label: "Liked" },
  { value: "dislike", label: "Disliked" },
];

/** The app's conversations with its end users, by end user and rating; each opens to its messages and their feedback. */
export function AppConversations({ appId }: { appId: string }) {
  const [filter, setFilter] = useState<ConversationFilter>({ endUser: "", rating: "all" });
  const [endUser, setEndUser] = useState("");
  const [openId, setOpenId] = useState<string | null>(null);
  const conversations = useAppConversations(appId, filter);
  const isFiltered = filter.endUser.trim() !== "" || filter.rating !== "all";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ ...filter, endUser });
  };

  return (
    <section className="card" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations</h2>
      <form className="row conversation-filter" onSubmit={submit} aria-label="Filter conversations">
        <Field label="End user" hint="Your user id, or the id shown below.">
          <input
            name="end-user"
            value={endUser}
            maxLength={300}
            onChange={(e) => setEndUser(e.target.value)}
          />
        </Field>
        <div className="align-end">
          <Button type="submit" variant="secondary">
            Filter
          </Button>
        </div>
        <fieldset className="segmented">
          <legend className="field-label">Rating</legend>
          {RATINGS.map((option) => (
            <label key={option.value} className={filter.rating === option.value ? "is-checked" : undefined}>
              <input
                type="radio"
                name="rating"
                value={option.value}
                checked={filter.rating === option.value}
                onChange={() => setFilter({ endUser, rating: option.value })}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
      </form>
      <QueryError query={conversations} />
      {conversations.isPending ? <Loading what="conversations" /> : null}
      {conversations.data?.length === 0 ? (
        <EmptyState title={isFiltered ? "No conversations match" : "No conversations yet"}>
          <p>{isFiltered ? "Try another end user or rating." : "They appear here as your users chat."}</p>
        </EmptyState>
      ) : null}
      {conversations.data?.length ? (
        <DataTable label="Conversations" columns={["Last message", "End user", "Title", "Version", ACTIONS]}>
          {conversations.data.map((conversation) => (
            <Fragment key={conversation.id}>
              <tr data-testid="conversation-row">
                <td>{formatDate(conversation.updated_at)}</td>
                <td>
                  <EndUser conversation={conversation} />
                </td>
                <td>{conversation.title || "Untitled"}</td>
                <td>{conversation.version === null ? "draft" : `v${conversation.version}`}</td>
                <td>
                  <Button
                    variant="secondary"
                    aria-expanded={openId === conversation.id}
                    onClick={() => setOpenId(openId === conversation.id ? null : conversation.id)}
                  >
                    {openId === conversation.id ? "Close" : "Open"}
                  </Button>
                </td>
              </tr>
              {openId === conversation.id ? (
                <tr>
                  <td colSpan={5}>
                    <ConversationMessages conversationId={conversation.id} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={conversations} what="conversations" />
    </section>
  );
}

function EndUser({ conversation }: { conversation: AppConversation }) {
  const endUser = conversation.end_user;
  if (!endUser) return <span className="muted">unknown</span>;
  return (
    <span data-testid="end-user">
      {endUser.name ? <strong>{endUser.name} </strong> : null}
      <code>{endUser.external_id}</code>{" "}
      <span className="muted">
        ({endUser.kind === "anonymous" ? "anonymous" : "your user"}, {endUser.id})
      </span>
    </span>
  );
}
