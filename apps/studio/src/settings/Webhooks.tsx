import { type FormEvent, Fragment, useId, useState } from "react";
import { DeleteButton } from "../ui/row-actions.tsx";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  Field,
  FormError,
  fieldErrors,
  formatDate,
  Loading,
  LoadMore,
  QueryError,
  SecretOnce,
  StatusBadge,
  type Tone,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import {
  type Delivery,
  type DeliveryStatus,
  EVENT_TYPES,
  useCreateWebhook,
  useDeleteWebhook,
  useDeliveries,
  useDelivery,
  useReplayDelivery,
  useReplayFailed,
  useRotateSecret,
  useUpdateWebhook,
  useWebhooks,
  type Webhook,
  type WebhookInput,
} from "./webhook-queries.ts";

const ALL = "*";

/** Outgoing webhooks: endpoints that receive the builder's signed events, their secrets and deliveries. */
export function Webhooks() {
  const webhooks = useWebhooks();
  const create = useCreateWebhook();
  const [isCreating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ url: string; value: string } | null>(null);

  return (
    <section className="card" aria-labelledby="webhooks-title" id="webhooks">
      <div className="section-header">
        <h2 id="webhooks-title">Outgoing webhooks</h2>
        {isCreating ? null : (
          <Button variant="secondary" onClick={() => setCreating(true)}>
            Add endpoint
          </Button>
        )}
      </div>
      <p className="muted">
        The builder POSTs events to your URL, signed with the endpoint's secret, and retries failed deliveries
        with backoff.
      </p>
      <QueryError query={webhooks} />
      {secret ? (
        <SecretOnce
          message={`Signing secret for ${secret.url}: copy it now; it will not be shown again.`}
          secret={secret.value}
          testId="webhook-secret"
          onDone={() => setSecret(null)}
        />
      ) : null}
      {isCreating ? (
        <WebhookForm
          title="New endpoint"
          submitLabel="Add endpoint"
          initial={{ url: "", events: [ALL], description: "" }}
          isBusy={create.isPending}
          error={create.error}
          onCancel={() => {
            setCreating(false);
            create.reset();
          }}
          onSubmit={(input) =>
            create.mutate(input, {
              onSuccess: (created) => {
                setCreating(false);
                if (created.secret) setSecret({ url: created.url, value: created.secret });
              },
            })
          }
        />
      ) : null}
      {webhooks.isPending ? <Loading what="webhooks" /> : null}
      {webhooks.data?.length === 0 && !isCreating ? (
        <EmptyState title="No webhook endpoints">
          <p>Add one to hear about finished workflow runs, ready documents, generations and credits.</p>
        </EmptyState>
      ) : null}
      <ul className="webhooks">
        {webhooks.data?.map((webhook) => (
          <WebhookItem
            key={webhook.id}
            webhook={webhook}
            onSecret={(value) => setSecret({ url: webhook.url, value })}
          />
        ))}
      </ul>
      <LoadMore query={webhooks} what="endpoints" />
    </section>
  );
}

function WebhookForm({
  title,
  submitLabel,
  initial,
  isBusy,
  error,
  onSubmit,
  onCancel,
}: {
  title: string;
  submitLabel: string;
  initial: WebhookInput;
  isBusy: boolean;
  error: unknown;
  onSubmit: (input: WebhookInput) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const [eventsError, setEventsError] = useState<string | undefined>();
  const apiError = fieldErrors(error);
  const isAll = form.events.includes(ALL);

  const toggle = (type: string, isOn: boolean) => {
    const rest = form.events.filter((event) => event !== type && event !== ALL);
    setForm({ ...form, events: isOn ? [...rest, type] : rest });
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (form.events.length === 0) {
      setEventsError("Pick at least one event.");
      return;
    }
    setEventsError(undefined);
    onSubmit({ ...form, url: form.url.trim() });
  };

  return (
    <form className="webhook-form" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      <FormError error={error} fields={["url", "description", "events"]} />
      <Field label="Endpoint URL" error={apiError?.fieldMessage("url")}>
        <input
          name="url"
          type="url"
          value={form.url}
          onChange={(e) => setForm({ ...form, url: e.target.value })}
          placeholder="https://example.com/hooks/builder"
          required
        />
      </Field>
      <Field label="Description" error={apiError?.fieldMessage("description")}>
        <input
          name="description"
          value={form.description}
          onChange={(e) => setForm({ ...form, description: e.target.value })}
          maxLength={500}
        />
      </Field>
      <fieldset className="checkbox-grid" aria-describedby={eventsError ? "events-error" : undefined}>
        <legend className="field-label">Events</legend>
        <label>
          <input
            type="checkbox"
            checked={isAll}
            onChange={(e) => setForm({ ...form, events: e.target.checked ? [ALL] : [] })}
          />
          All events, including future ones
        </label>
        {EVENT_TYPES.map(({ type, label }) => (
          <label key={type} title={type}>
            <input
              type="checkbox"
              checked={isAll || form.events.includes(type)}
              disabled={isAll}
              onChange={(e) => toggle(type, e.target.checked)}
            />
            {label} <code className="muted">{type}</code>
          </label>
        ))}
      </fieldset>
      {eventsError || apiError?.fieldMessage("events") ? (
        <p id="events-error" className="field-error" role="alert">
          {eventsError ?? apiError?.fieldMessage("events")}
        </p>
      ) : null}
      <div className="actions">
        <Guarded needs="admin">
          <Button type="submit" isBusy={isBusy}>
            {submitLabel}
          </Button>
        </Guarded>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function WebhookItem({ webhook, onSecret }: { webhook: Webhook; onSecret: (secret: string) => void }) {
  const update = useUpdateWebhook();
  const rotate = useRotateSecret();
  const remove = useDeleteWebhook();
  const [isEditing, setEditing] = useState(false);
  const [isShowingDeliveries, setShowingDeliveries] = useState(false);
  const deliveriesId = useId();
  const isDisabled = webhook.status === "disabled";

  return (
    <li className="webhook" data-testid="webhook">
      <div className="webhook-title">
        <code className="webhook-url">{webhook.url}</code>
        <StatusBadge tone={isDisabled ? "neutral" : "ok"}>{isDisabled ? "Disabled" : "Enabled"}</StatusBadge>
      </div>
      {webhook.description ? <div>{webhook.description}</div> : null}
      <div className="muted webhook-events">
        {webhook.events.includes(ALL) ? "All events" : webhook.events.join(", ")}
        {webhook.previous_secret_expires_at
          ? ` · the previous secret also signs until ${formatDate(webhook.previous_secret_expires_at)}`
          : ""}
      </div>
      <ErrorBox error={update.error ?? rotate.error ?? remove.error} />
      {isEditing ? (
        <WebhookForm
          title="Edit endpoint"
          submitLabel="Save"
          initial={{ url: webhook.url, events: webhook.events, description: webhook.description }}
          isBusy={update.isPending}
          error={update.error}
          onCancel={() => {
            setEditing(false);
            update.reset();
          }}
          onSubmit={(input) =>
            update.mutate({ id: webhook.id, ...input }, { onSuccess: () => setEditing(false) })
          }
        />
      ) : (
        <div className="actions">
          <Button
            variant="secondary"
            aria-expanded={isShowingDeliveries}
            aria-controls={deliveriesId}
            onClick={() => setShowingDeliveries(!isShowingDeliveries)}
          >
            Deliveries
          </Button>
          <Button variant="secondary" onClick={() => setEditing(true)}>
            Edit
          </Button>
          <Button
            variant="secondary"
            isBusy={update.isPending}
            onClick={() => update.mutate({ id: webhook.id, disabled: !isDisabled })}
          >
            {isDisabled ? "Enable" : "Disable"}
          </Button>
          <Button
            variant="secondary"
            isBusy={rotate.isPending}
            onClick={() => {
              if (confirm("Issue a new signing secret? The current one keeps signing for 24 hours."))
                rotate.mutate(webhook.id, {
                  onSuccess: (rotated) => {
                    if (rotated.secret) onSecret(rotated.secret);
                  },
                });
            }}
          >
            Rotate secret
          </Button>
          <DeleteButton
            needs="admin"
            remove={remove}
            id={webhook.id}
            question={`Delete the endpoint ${webhook.url} and its delivery history?`}
          />
        </div>
      )}
      {isShowingDeliveries ? (
        <div id={deliveriesId}>
          <Deliveries webhookId={webhook.id} />
        </div>
      ) : null}
    </li>
  );
}

const DELIVERY_TONE: Record<DeliveryStatus, Tone> = {
  pending: "busy",
  retrying: "busy",
  delivered: "ok",
  failed: "danger",
};

function Deliveries({ webhookId }: { webhookId: string }) {
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const deliveries = useDeliveries(webhookId, status);
  const replay = useReplayDelivery(webhookId);
  const [openId, setOpenId] = useState<string | null>(null);

  return (
    <div className="deliveries">
      <div className="section-header">
        <h4>Deliveries</h4>
        <label className="inline">
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | "")}>
            <option value="">Any</option>
            <option value="pending">Pending</option>
            <option value="retrying">Retrying</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
        </label>
      </div>
      <QueryError query={deliveries} />
      <ErrorBox error={replay.error} />
      {deliveries.isPending ? <Loading what="deliveries" /> : null}
      {deliveries.data?.length === 0 ? (
        <p className="muted">No deliveries{status ? ` with status ${status}` : ""} yet.</p>
      ) : null}
      {deliveries.data && deliveries.data.length > 0 ? (
        <DataTable
          label="Deliveries"
          columns={["Event", "Status", "Attempts", "Last answer", "Created", ACTIONS]}
        >
          {deliveries.data.map((delivery) => (
            <Fragment key={delivery.id}>
              <tr data-testid="delivery-row">
                <td>
                  <code>{delivery.event_type}</code>
                </td>
                <td>
                  <StatusBadge tone={DELIVERY_TONE[delivery.status]}>{delivery.status}</StatusBadge>
                  {delivery.next_attempt_at ? (
                    <div className="muted">next {formatDate(delivery.next_attempt_at)}</div>
                  ) : null}
                </td>
                <td>{delivery.attempt_count}</td>
                <td>{lastAnswer(delivery)}</td>
                <td>{formatDate(delivery.created_at)}</td>
                <td className="cell-actions">
                  <Button
                    variant="secondary"
                    aria-expanded={openId === delivery.id}
                    onClick={() => setOpenId(openId === delivery.id ? null : delivery.id)}
                  >
                    Attempts
                  </Button>
                  {delivery.status === "delivered" || delivery.status === "failed" ? (
                    <Button
                      variant="secondary"
                      isBusy={replay.isPending && replay.variables === delivery.id}
                      onClick={() => replay.mutate(delivery.id)}
                    >
                      Replay
                    </Button>
                  ) : null}
                </td>
              </tr>
              {openId === delivery.id ? (
                <tr>
                  <td colSpan={6}>
                    <Attempts webhookId={webhookId} deliveryId={delivery.id} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={deliveries} what="deliveries" />
      <ReplayFailed webhookId={webhookId} />
    </div>
  );
}

function lastAnswer(delivery: Delivery): string {
  if (delivery.last_response_status !== null) return `HTTP ${delivery.last_response_status}`;
  if (delivery.last_error) return delivery.last_error;
  return "—";
}

function Attempts({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const delivery = useDelivery(webhookId, deliveryId);
  const attempts = delivery.data?.attempts ?? [];
  return (
    <div className="attempts">
      <QueryError query={delivery} />
      {delivery.isPending ? <Loading what="attempts" /> : null}
      {delivery.data && attempts.length === 0 ? <p className="muted">Not attempted yet.</p> : null}
      <ol className="chunk-list">
        {attempts.map((attempt) => (
          <li key={attempt.id} data-testid="attempt">
            <div className="chunk-meta">
              <StatusBadge tone={attempt.success ? "ok" : "danger"}>
                {attempt.response_status !== null ? `HTTP ${attempt.response_status}` : "No answer"}
              </StatusBadge>
              <span className="muted">
                {formatDate(attempt.attempted_at)} · {attempt.duration_ms} ms
              </span>
            </div>
            {attempt.error ? <p className="field-error">{attempt.error}</p> : null}
            {attempt.response_body ? <pre className="chunk-text">{attempt.response_body}</pre> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

function ReplayFailed({ webhookId }: { webhookId: string }) {
  const replay = useReplayFailed(webhookId);
  const [since, setSince] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (since) replay.mutate(new Date(since).toISOString());
  };
  return (
    <form className="row replay-failed" onSubmit={submit} aria-label="Replay failed deliveries">
      <Field label="Replay failed deliveries since">
        <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />
      </Field>
      <div className="align-end">
        <Button type="submit" variant="secondary" isBusy={replay.isPending}>
          Replay failed
        </Button>
      </div>
      {replay.data ? (
        <p role="status" className="muted align-end">
          {replay.data.replayed === 0
            ? "No failed delivery since then."
            : `${replay.data.replayed} deliver${replay.data.replayed === 1 ? "y is" : "ies are"} due again.`}
        </p>
      ) : null}
      <ErrorBox error={replay.error} />
    </form>
  );
}
