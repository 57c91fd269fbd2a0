import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api/client.ts";
import type { McpAuthorization } from "../api/schema.gen.ts";
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
import { Guarded } from "../workspaces/Guarded.tsx";
import { type McpServer, type McpServerCheck, useMcpServerList } from "./queries.ts";

type Auth = "none" | "bearer" | "oauth";

/** Remote MCP servers whose tools agents and Tool nodes use (docs/mcp.md). */
export function McpServers() {
  const client = useQueryClient();
  const servers = useMcpServerList();
  const [form, setForm] = useState({ name: "", url: "", auth: "none" as Auth, bearer_token: "" });
  const refresh = () => client.invalidateQueries({ queryKey: ["mcp-servers"] });
  const create = useMutation({
    mutationFn: () =>
      api<McpServer>("/api/mcp-servers", {
        json: {
          name: form.name.trim(),
          url: form.url.trim(),
          ...(form.auth === "bearer" ? { bearer_token: form.bearer_token } : {}),
          ...(form.auth === "oauth" ? { oauth: true } : {}),
        },
      }),
    onSuccess: () => {
      setForm({ name: "", url: "", auth: "none", bearer_token: "" });
      void refresh();
    },
  });
  const remove = useDelete("/api/mcp-servers", ["mcp-servers"]);
  const authorize = useMutation({
    mutationFn: (id: string) => api<McpAuthorization>(`/api/mcp-servers/${id}/authorize`, { method: "POST" }),
    // The authorization server sends the person back to the builder, which says when it is done.
    onSuccess: ({ authorization_url }) => window.open(authorization_url, "_blank", "noopener"),
  });

  const checks = useRowChecks(async (id) => {
    const result = await api<McpServerCheck>(`/api/mcp-servers/${id}/test`, { method: "POST" });
    // The test lists the server's tools again: the row shows the new list.
    void refresh();
    const count = result.tools.length;
    return `Works over ${result.transport === "sse" ? "HTTP+SSE" : "Streamable HTTP"}: ${count} tool${count === 1 ? "" : "s"} in ${result.latency_ms} ms.`;
  });

  const error = fieldErrors(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <section className="card" aria-labelledby="mcp-servers-title" id="mcp-servers">
      <h2 id="mcp-servers-title">MCP servers</h2>
      <p className="muted">
        Remote Model Context Protocol servers. Agents and workflow Tool nodes can use their tools. Tokens are
        stored encrypted and never shown again.
      </p>
      <QueryError query={servers} />
      <ErrorBox error={remove.error ?? authorize.error} />
      <form onSubmit={submit} aria-label="Add an MCP server">
        <FormError error={create.error} fields={["name", "url", "bearer_token"]} />
        <div className="row">
          <Field label="Name" error={error?.fieldMessage("name")}>
            <input
              name="name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
              maxLength={100}
              required
            />
          </Field>
          <Field
            label="URL"
            error={error?.fieldMessage("url")}
            hint="The server's MCP endpoint, e.g. https://…/mcp"
          >
            <input
              name="url"
              type="url"
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.target.value })}
              placeholder="https://…"
              required
            />
          </Field>
        </div>
        <div className="row">
          <Field label="Authentication">
            <select
              name="auth"
              value={form.auth}
              onChange={(e) => setForm({ ...form, auth: e.target.value as Auth })}
            >
              <option value="none">None</option>
              <option value="bearer">Bearer token</option>
              <option value="oauth">OAuth (authorize after adding)</option>
            </select>
          </Field>
          {form.auth === "bearer" ? (
            <Field label="Token" error={error?.fieldMessage("bearer_token")}>
              <input
                name="bearer_token"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={form.bearer_token}
                onChange={(e) => setForm({ ...form, bearer_token: e.target.value })}
                required
              />
            </Field>
          ) : null}
        </div>
        <Guarded needs="admin">
          <Button type="submit" isBusy={create.isPending}>
            Add MCP server
          </Button>
        </Guarded>
      </form>
      {servers.isPending ? <Loading what="MCP servers" /> : null}
      {servers.data?.length === 0 ? (
        <EmptyState title="No MCP servers">
          <p>Add one to give agents and workflows its tools.</p>
        </EmptyState>
      ) : null}
      {servers.data && servers.data.length > 0 ? (
        <DataTable label="MCP servers" columns={["Server", "Tools", "Added", ACTIONS]}>
          {servers.data.map((server) => {
            return (
              <tr key={server.id} data-testid="mcp-server-row">
                <td>
                  <div className="cell-title">{server.name}</div>
                  <div className="muted">{server.url}</div>
                  {server.auth !== "none" ? (
                    <div className="muted">
                      {server.auth === "oauth"
                        ? "OAuth"
                        : server.auth === "bearer"
                          ? "Bearer token"
                          : "Headers"}{" "}
                      {server.secret_hint ? <code>{server.secret_hint}</code> : null}
                    </div>
                  ) : null}
                  <CheckStatus result={checks.results[server.id]} />
                </td>
                <td>
                  {server.tools === null ? (
                    <span className="muted">not listed yet: test it</span>
                  ) : (
                    server.tools.map((tool) => (
                      <div key={tool.name} title={tool.description}>
                        <code>{tool.name}</code>
                      </div>
                    ))
                  )}
                </td>
                <td>{formatDate(server.created_at)}</td>
                <td className="cell-actions">
                  {server.auth === "oauth" ? (
                    <Button
                      variant="secondary"
                      isBusy={authorize.isPending && authorize.variables === server.id}
                      onClick={() => authorize.mutate(server.id)}
                      aria-label={`Authorize ${server.name}`}
                    >
                      Authorize
                    </Button>
                  ) : null}
                  <CheckButton checks={checks} id={server.id} label={`Test ${server.name}`} />
                  <DeleteButton
                    needs="admin"
                    remove={remove}
                    id={server.id}
                    question={`Delete the MCP server ${server.name}? Agents and nodes using it will report it missing.`}
                    label={`Delete ${server.name}`}
                  />
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
      <LoadMore query={servers} what="MCP servers" />
    </section>
  );
}
