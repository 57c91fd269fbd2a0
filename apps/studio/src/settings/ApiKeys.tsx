import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { ApiKey } from "../api/types.ts";
import { useDelete } from "../api/use-delete.ts";
import { DeleteButton } from "../ui/row-actions.tsx";
import { Button, EmptyState, ErrorBox, Field, Loading, LoadMore, QueryError, SecretOnce } from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";

/** API keys for scripts: created here, shown once, listed by prefix, revocable. */
export function ApiKeys() {
  const client = useQueryClient();
  const keys = usePagedList<ApiKey>(["keys", "pages"], "/api/keys");
  const [name, setName] = useState("");
  const [revealed, setRevealed] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (keyName: string) => api<ApiKey & { key: string }>("/api/keys", { json: { name: keyName } }),
    onSuccess: (created) => {
      setRevealed(created.key);
      setName("");
      void client.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = useDelete("/api/keys", ["keys"]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name);
  };

  return (
    <section className="card" aria-labelledby="keys-title" id="api-keys">
      <h2 id="keys-title">API keys</h2>
      <p className="muted">
        Send a key as <code>Authorization: Bearer &lt;key&gt;</code> to call the API from scripts.
      </p>
      <QueryError query={keys} />
      <ErrorBox error={create.error ?? revoke.error} />
      {revealed ? (
        <SecretOnce
          message="Copy this key now; it will not be shown again."
          secret={revealed}
          testId="new-api-key"
          onDone={() => setRevealed(null)}
        />
      ) : null}
      <form className="row" onSubmit={submit}>
        <Field label="New key name">
          <input
            name="key-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
        </Field>
        <div style={{ alignSelf: "center", flex: 0 }}>
          <Guarded needs="admin">
            <Button type="submit" isBusy={create.isPending}>
              Create key
            </Button>
          </Guarded>
        </div>
      </form>
      {keys.isPending ? <Loading what="keys" /> : null}
      {keys.data?.length === 0 ? <EmptyState title="No API keys" /> : null}
      {keys.data && keys.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Created</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id} data-testid="api-key-row">
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{new Date(key.created_at).toLocaleString()}</td>
                <td>{key.last_used_at ? new Date(key.last_used_at).toLocaleString() : "never"}</td>
                <td>
                  <DeleteButton
                    needs="admin"
                    remove={revoke}
                    id={key.id}
                    question={`Revoke the key “${key.name}”? Scripts using it stop working.`}
                    label={`Revoke the key ${key.name}`}
                  >
                    Revoke
                  </DeleteButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <LoadMore query={keys} what="keys" />
    </section>
  );
}
