import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, api } from "../api/client.ts";
import type { McpAuthorization } from "../api/schema.gen.ts";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  Field,
  formatDate,
  Loading,
  StatusBadge,
} from "../ui/ui.tsx";
import { type McpServer, type McpServerCheck, useMcpServers } from "./queries.ts";

type Auth = "none" | "bearer" | "oauth";

interface CheckResult {
  isOk: boolean;
  text: string;
}

/** Remote MCP servers whose tools agents and Tool nodes use (docs/mcp.md). */
export function McpServers() {
  const client = useQueryClient();
  const servers = useMcpServers();
  const [form, setForm] = useState({ name: "", url: "", auth: "none" as Auth, bearer_token: "" });
  const [checks, setChecks] = useState<Record<string, CheckResult | "checking">>({});
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
  const remove = useMutation({
    mutationFn: (id: string) => api<void>(`/api/mcp-servers/${id}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  const authorize = useMutation({
    mutationFn: (id: string) => api<McpAuthorization>(`/api/mcp-servers/${id}/authorize`, { method: "POST" }),
    // The authorization server sends the person back to the builder, which says when it is done.
    onSuccess: ({ authorization_url }) => window.open(authorization_url, "_blank", "noopener"),
  });

  const check = async (id: string) => {
    setChecks((current) => ({ ...current, [id]: "checking" }));
    try {
      const result = await api<McpServerCheck>(`/api/mcp-servers/${id}/test`, { method: "POST" });
      const count = result.tools.length;
      const text = `Works over ${result.transport === "sse" ? "HTTP+SSE" : "Streamable HTTP"}: ${count} tool${count === 1 ? "" : "s"} in ${result.latency_ms} ms.`;
      setChecks((current) => ({ ...current, [id]: { isOk: true, text } }));
      void refresh();
    } catch (error) {
      setChecks((current) => ({
        ...current,
        [id]: { isOk: false, text: error instanceof Error ? error.message : String(error) },
      }));
    }
  };

  const error = create.error instanceof ApiError ? create.error : undefined;
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
      <ErrorBox error={servers.error ?? remove.error ?? authorize.error} />
      <form onSubmit={submit} aria-label="Add an MCP server">
        {error && !error.details.length ? <ErrorBox error={error} /> : null}
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
        <Button type="submit" isBusy={create.isPending}>
          Add MCP server
        </Button>
      </form>
      {servers.isPending ? <Loading what="MCP servers" /> : null}
      {servers.data?.data.length === 0 ? (
        <EmptyState title="No MCP servers">
          <p>Add one to give agents and workflows its tools.</p>
        </EmptyState>
      ) : null}
      {servers.data && servers.data.data.length > 0 ? (
        <DataTable label="MCP servers" columns={["Server", "Tools", "Added", ACTIONS]}>
          {servers.data.data.map((server) => {
            const result = checks[server.id];
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
                  {result && result !== "checking" ? (
                    <div role="status">
                      <StatusBadge tone={result.isOk ? "ok" : "danger"}>
                        {result.isOk ? "OK" : "Failed"}
                      </StatusBadge>{" "}
                      <span className={result.isOk ? "muted" : "field-error"}>{result.text}</span>
                    </div>
                  ) : null}
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
                  <Button
                    variant="secondary"
                    isBusy={result === "checking"}
                    onClick={() => void check(server.id)}
                    aria-label={`Test ${server.name}`}
                  >
                    Test
                  </Button>
                  <Button
                    variant="danger"
                    isBusy={remove.isPending && remove.variables === server.id}
                    onClick={() => {
                      if (
                        confirm(
                          `Delete the MCP server ${server.name}? Agents and nodes using it will report it missing.`,
                        )
                      )
                        remove.mutate(server.id);
                    }}
                    aria-label={`Delete ${server.name}`}
                  >
                    Delete
                  </Button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
    </section>
  );
}
