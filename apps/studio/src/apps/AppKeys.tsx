import { type FormEvent, useState } from "react";
import { DeleteButton } from "../ui/row-actions.tsx";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  Field,
  formatDate,
  Loading,
  LoadMore,
  QueryError,
  SecretOnce,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { useAppKeys, useCreateAppKey, useRevokeAppKey } from "./queries.ts";

/** Server-to-server keys of one app: created here and shown once, listed by prefix, revocable. */
export function AppKeys({ appId }: { appId: string }) {
  const keys = useAppKeys(appId);
  const create = useCreateAppKey(appId);
  const revoke = useRevokeAppKey(appId);
  const [name, setName] = useState("");
  const [revealed, setRevealed] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name, {
      onSuccess: (created) => {
        setRevealed(created.key);
        setName("");
      },
    });
  };

  return (
    <section className="card" aria-labelledby="app-keys-title">
      <h2 id="app-keys-title">App keys</h2>
      <p className="muted">
        For your own server: send <code>Authorization: Bearer &lt;key&gt;</code> with{" "}
        <code>X-End-User: &lt;your user id&gt;</code>. A key reaches only this app's public API.
      </p>
      <QueryError query={keys} />
      <ErrorBox error={create.error ?? revoke.error} />
      {revealed ? (
        <SecretOnce
          message="Copy this app key now; it will not be shown again."
          secret={revealed}
          testId="new-app-key"
          onDone={() => setRevealed(null)}
        />
      ) : null}
      <form className="row" onSubmit={submit} aria-label="New app key">
        <Field label="New key name">
          <input
            name="app-key-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
        </Field>
        <div className="align-end">
          <Guarded needs="admin">
            <Button type="submit" isBusy={create.isPending}>
              Create key
            </Button>
          </Guarded>
        </div>
      </form>
      {keys.isPending ? <Loading what="app keys" /> : null}
      {keys.data?.length === 0 ? <EmptyState title="No app keys" /> : null}
      {keys.data?.length ? (
        <DataTable label="App keys" columns={["Name", "Key", "Created", "Last used", ACTIONS]}>
          {keys.data.map((key) => (
            <tr key={key.id} data-testid="app-key-row">
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{formatDate(key.created_at)}</td>
              <td>{key.last_used_at ? formatDate(key.last_used_at) : "never"}</td>
              <td>
                <DeleteButton
                  needs="admin"
                  remove={revoke}
                  id={key.id}
                  question={`Revoke the app key “${key.name}”? Servers using it stop reaching the app.`}
                  label={`Revoke the app key ${key.name}`}
                >
                  Revoke
                </DeleteButton>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <LoadMore query={keys} what="app keys" />
    </section>
  );
}
