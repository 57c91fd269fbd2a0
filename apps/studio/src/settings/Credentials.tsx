import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useProviders } from "../agents/queries.ts";
import { api } from "../api/client.ts";
import type { CredentialCheck } from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";
import { CheckButton, CheckStatus, DeleteButton, useRowChecks } from "../ui/row-actions.tsx";
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
} from "../ui/ui.tsx";
import { type Credential, HTTP_SECRET, REPLICATE, useCredentialList } from "./credential-queries.ts";

/** The kinds that are not model providers of /api/providers, and take no base URL. */
const OTHER_KINDS: Record<string, string> = { [REPLICATE]: "Replicate", [HTTP_SECRET]: "HTTP secret" };

/** Provider keys (and Replicate tokens) of the workspace: stored encrypted, shown only as a hint, checkable without spending tokens. */
export function Credentials() {
  const client = useQueryClient();
  const providers = useProviders();
  const credentials = useCredentialList();
  // `?provider=` (from a "no key" note elsewhere) picks the provider to add.
  const [form, setForm] = useState(() => ({
    provider: new URLSearchParams(window.location.search).get("provider") ?? "openai",
    api_key: "",
    base_url: "",
    name: "",
  }));
  const create = useMutation({
    mutationFn: () =>
      api<Credential>("/api/credentials", {
        json: {
          provider: form.provider,
          api_key: form.api_key,
          ...(form.base_url.trim() ? { base_url: form.base_url.trim() } : {}),
          ...(form.name.trim() ? { name: form.name.trim() } : {}),
        },
      }),
    onSuccess: () => {
      setForm({ ...form, api_key: "", base_url: "", name: "" });
      void client.invalidateQueries({ queryKey: ["credentials"] });
      // The workspace's default provider and the models its key lists follow its keys.
      void client.invalidateQueries({ queryKey: ["providers"] });
    },
  });
  const remove = useDelete("/api/credentials", ["credentials"]);
  const checks = useRowChecks(async (id) => {
    const result = await api<CredentialCheck>(`/api/credentials/${id}/test`, { method: "POST" });
    return result.model_count === null
      ? `Works: the account ${result.account ?? "(unnamed)"} answered in ${result.latency_ms} ms.`
      : `Works: ${result.model_count} model${result.model_count === 1 ? "" : "s"} listed in ${result.latency_ms} ms.`;
  });

  const error = fieldErrors(create.error);
  const provider = providers.data?.data.find((candidate) => candidate.id === form.provider);
  const nameOf = (id: string) => OTHER_KINDS[id] ?? providers.data?.data.find((p) => p.id === id)?.name ?? id;
  const needsBaseUrl = provider?.requires_base_url ?? false;
  // A Replicate token uses the server's REPLICATE_BASE_URL; an HTTP secret goes where its node sends it.
  const canHaveBaseUrl = OTHER_KINDS[form.provider] === undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <section className="card" aria-labelledby="credentials-title" id="credentials">
      <h2 id="credentials-title">Provider credentials</h2>
      <p className="muted">
        Keys for AI providers, used by agents, workflows and knowledge bases before the server's own keys, and
        a Replicate API token for image and video generation. They are stored encrypted and never shown again,
        only their last characters.
      </p>
      <QueryError query={credentials} />
      <QueryError query={providers} />
      <ErrorBox error={remove.error} />
      <form onSubmit={submit} aria-label="Add a credential">
        <FormError error={create.error} fields={["provider", "api_key", "base_url", "name"]} />
        <div className="row">
          <Field label="Provider" error={error?.fieldMessage("provider")}>
            <select
              name="provider"
              value={form.provider}
              onChange={(e) => setForm({ ...form, provider: e.target.value, base_url: "" })}
            >
              {providers.data?.data.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
              <option value={REPLICATE}>Replicate (image and video generation)</option>
              <option value={HTTP_SECRET}>HTTP secret (for HTTP nodes)</option>
            </select>
          </Field>
          <Field label="Label" error={error?.fieldMessage("name")} hint="Optional, to tell keys apart.">
            <input
              name="name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
              maxLength={100}
            />
          </Field>
        </div>
        <Field
          label={
            form.provider === HTTP_SECRET ? "Secret" : form.provider === REPLICATE ? "API token" : "API key"
          }
          error={error?.fieldMessage("api_key")}
        >
          <input
            name="api_key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={form.api_key}
            onChange={(e) => setForm({ ...form, api_key: e.target.value })}
            required
          />
        </Field>
        {canHaveBaseUrl ? (
          <Field
            label={needsBaseUrl ? "Base URL (required)" : "Base URL"}
            error={error?.fieldMessage("base_url")}
            hint={
              needsBaseUrl
                ? "Where the server speaks OpenAI's API, e.g. http://localhost:11434/v1 for Ollama."
                : "Leave empty for the provider's own endpoint."
            }
          >
            <input
              name="base_url"
              type="url"
              value={form.base_url}
              onChange={(e) => setForm({ ...form, base_url: e.target.value })}
              required={needsBaseUrl}
              placeholder="https://…"
            />
          </Field>
        ) : null}
        <Button type="submit" isBusy={create.isPending}>
          Add credential
        </Button>
      </form>
      {credentials.isPending ? <Loading what="credentials" /> : null}
      {credentials.data?.length === 0 ? (
        <EmptyState title="No credentials">
          <p>Without one, providers use the server's environment keys, if any.</p>
        </EmptyState>
      ) : null}
      {credentials.data && credentials.data.length > 0 ? (
        <DataTable label="Credentials" columns={["Provider", "Key", "Added", "Last used", ACTIONS]}>
          {credentials.data.map((credential) => {
            return (
              <tr key={credential.id} data-testid="credential-row">
                <td>
                  <div className="cell-title">{nameOf(credential.provider)}</div>
                  {isOwnLabel(credential, nameOf(credential.provider)) ? (
                    <div className="muted">{credential.name}</div>
                  ) : null}
                  {credential.base_url ? <div className="muted">{credential.base_url}</div> : null}
                </td>
                <td>
                  <code>{credential.key_hint}</code>
                  <CheckStatus result={checks.results[credential.id]} />
                </td>
                <td>{formatDate(credential.created_at)}</td>
                <td>{credential.last_used_at ? formatDate(credential.last_used_at) : "never"}</td>
                <td className="cell-actions">
                  {credential.provider !== HTTP_SECRET ? (
                    <CheckButton
                      checks={checks}
                      id={credential.id}
                      label={`Test the ${nameOf(credential.provider)} key ${credential.key_hint}`}
                    />
                  ) : null}
                  <DeleteButton
                    remove={remove}
                    id={credential.id}
                    question={`Delete the ${nameOf(credential.provider)} key ${credential.key_hint}?`}
                    label={`Delete the ${nameOf(credential.provider)} key ${credential.key_hint}`}
                  />
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
      <LoadMore query={credentials} what="credentials" />
    </section>
  );
}

/** Whether the user named the credential, rather than the server's default "<Provider> key". */
function isOwnLabel(credential: Credential, providerName: string): boolean {
  return (
    credential.name !== "" && credential.name !== `${providerName} key` && credential.name !== providerName
  );
}
