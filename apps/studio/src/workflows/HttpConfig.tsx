import { useState } from "react";
import { useCredentials } from "../settings/credential-queries.ts";
import { Field, QueryError } from "../ui/ui.tsx";
import { type Row, RowsEditor, TemplateField } from "./config-fields.tsx";

type Config = Record<string, unknown>;
type Auth = { type: "none" | "bearer" | "basic" | "api_key"; [key: string]: unknown };

/** The field each auth type keeps its secret in when it is typed into the node instead of stored. */
const SECRET_FIELD = { bearer: "token", basic: "password", api_key: "value" } as const;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

/**
 * The HTTP node's settings: method, URL, query, headers, body, auth (a stored credential, so the
 * secret stays out of the workflow, or a value typed in) and timeout; retries are the node's own settings.
 */
export function HttpConfig({
  config,
  set,
  variables,
}: {
  config: Config;
  set: (key: string, value: unknown) => void;
  variables: string[];
}) {
  const auth = (config.auth as Auth | undefined) ?? { type: "none" };
  const method = String(config.method ?? "GET");
  const body =
    typeof config.body === "string"
      ? config.body
      : config.body === undefined
        ? ""
        : JSON.stringify(config.body, null, 2);
  // A templated method (`{{start.verb}}`, from an import or the API) stays listed, so it shows as it is.
  const methods = METHODS.includes(method) ? METHODS : [...METHODS, method];
  return (
    <>
      <Field label="Method">
        <select value={method} onChange={(e) => set("method", e.target.value)}>
          {methods.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
      </Field>
      <TemplateField
        label="URL"
        value={String(config.url ?? "")}
        variables={variables}
        onChange={(v) => set("url", v)}
      />
      <RecordEditor
        label="Query"
        record={config.query}
        variables={variables}
        onChange={(record) => set("query", record)}
      />
      <RecordEditor
        label="Headers"
        record={config.headers}
        variables={variables}
        onChange={(record) => set("headers", record)}
      />
      <TemplateField
        label="Body"
        multiline
        codeLanguage={/^\s*[[{]/.test(body) || body === "" ? "json" : "text"}
        value={body}
        variables={variables}
        onChange={(v) => set("body", v === "" ? undefined : v)}
      />
      <AuthFields auth={auth} onChange={(next) => set("auth", next.type === "none" ? undefined : next)} />
      <Field label="Timeout per attempt (ms)">
        <input
          type="number"
          min={1}
          max={600000}
          value={config.timeout_ms === undefined ? "" : String(config.timeout_ms)}
          placeholder="30000"
          onChange={(e) => set("timeout_ms", e.target.value === "" ? undefined : Number(e.target.value))}
        />
      </Field>
    </>
  );
}

function AuthFields({ auth, onChange }: { auth: Auth; onChange: (auth: Auth) => void }) {
  const credentials = useCredentials();
  const secretField = auth.type === "none" ? undefined : SECRET_FIELD[auth.type];
  const isStored = typeof auth.credential_id === "string";
  return (
    <fieldset className="rows">
      <QueryError query={credentials} />
      <legend>Authentication</legend>
      <Field label="Type">
        <select
          value={auth.type}
          onChange={(e) => {
            const type = e.target.value as Auth["type"];
            if (type === "none") return onChange({ type });
            const extra =
              type === "basic" ? { username: "" } : type === "api_key" ? { header: "X-Api-Key" } : {};
            onChange({ type, ...extra, [SECRET_FIELD[type]]: "" });
          }}
        >
          <option value="none">None</option>
          <option value="bearer">Bearer token</option>
          <option value="basic">Basic (username and password)</option>
          <option value="api_key">API key header</option>
        </select>
      </Field>
      {auth.type === "basic" ? (
        <Field label="Username">
          <input
            value={String(auth.username ?? "")}
            onChange={(e) => onChange({ ...auth, username: e.target.value })}
          />
        </Field>
      ) : null}
      {auth.type === "api_key" ? (
        <Field label="Header">
          <input
            value={String(auth.header ?? "")}
            onChange={(e) => onChange({ ...auth, header: e.target.value })}
          />
        </Field>
      ) : null}
      {secretField ? (
        <>
          <Field
            label="Secret"
            hint={
              isStored
                ? "The stored credential's secret is sent; it never appears in the workflow or its export."
                : "Typed in, the secret is saved in the workflow and its export: prefer a stored credential."
            }
          >
            <select
              value={isStored ? String(auth.credential_id) : ""}
              onChange={(e) => {
                const { credential_id: _unused, [secretField]: _secret, ...rest } = auth;
                onChange(
                  e.target.value === ""
                    ? ({ ...rest, [secretField]: "" } as Auth)
                    : ({ ...rest, credential_id: e.target.value } as Auth),
                );
              }}
            >
              <option value="">Type a value…</option>
              {(credentials.data?.data ?? []).map((credential) => (
                <option key={credential.id} value={credential.id}>
                  {credential.name} ({credential.key_hint})
                </option>
              ))}
            </select>
          </Field>
          {isStored ? null : (
            <Field
              label={secretField === "password" ? "Password" : secretField === "token" ? "Token" : "Value"}
            >
              <input
                type="password"
                autoComplete="off"
                value={String(auth[secretField] ?? "")}
                onChange={(e) => onChange({ ...auth, [secretField]: e.target.value })}
              />
            </Field>
          )}
        </>
      ) : null}
      {credentials.isError ? <p className="muted">Stored credentials could not be loaded.</p> : null}
    </fieldset>
  );
}

/**
 * Name/value rows over an object. The rows live here while being typed: a row without a name yet
 * (or a second row with the same name) cannot be a key of the saved object, which keeps only the
 * named rows.
 */
function RecordEditor({
  label,
  record,
  variables,
  onChange,
}: {
  label: string;
  record: unknown;
  variables: string[];
  onChange: (record: Record<string, string> | undefined) => void;
}) {
  const [rows, setRows] = useState<Row[]>(() =>
    record && typeof record === "object"
      ? Object.entries(record as Record<string, unknown>).map(([name, value]) => ({ name, value }))
      : [],
  );
  return (
    <RowsEditor
      label={label}
      rows={rows}
      blank={{ name: "", value: "" }}
      onChange={(next) => {
        setRows(next);
        const named = next.filter((row) => String(row.name ?? "").trim() !== "");
        onChange(
          named.length === 0
            ? undefined
            : Object.fromEntries(named.map((row) => [String(row.name).trim(), String(row.value ?? "")])),
        );
      }}
      columns={[
        { key: "name", label: "Name" },
        { key: "value", label: "Value", variables },
      ]}
    />
  );
}
