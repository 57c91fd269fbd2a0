import { useProviders } from "../agents/queries.ts";
import { CodeEditor } from "../editor/CodeEditor.tsx";
import {
  codeAfterLanguageChange,
  ENTRY_POINTS,
  errorLine,
  SANDBOX_LANGUAGES,
  type SandboxLanguage,
} from "../editor/languages.ts";
import { useKnowledgeBases } from "../knowledge/queries.ts";
import { type McpArgs, McpToolNodeConfig } from "../mcp/McpToolNodeConfig.tsx";
import { ProviderKeyNote } from "../settings/ProviderKeyNote.tsx";
import { Button, Field, Link, QueryError } from "../ui/ui.tsx";
import { ApprovalSettings } from "./ApprovalSettings.tsx";
import { JsonField, type Row, RowsEditor, TemplateField } from "./config-fields.tsx";
import { FailureSettings } from "./FailureSettings.tsx";
import type { EditorNode } from "./graph.ts";
import { HttpConfig } from "./HttpConfig.tsx";

type Config = Record<string, unknown>;

interface Props {
  node: EditorNode;
  variables: string[];
  tools: { name: string; description: string }[];
  onChange: (config: Config, extra?: EditorNode["data"]["extra"]) => void;
  onDelete: () => void;
  /** The error this node failed with in the run on screen, if it did. */
  runError?: { code: string; message: string } | null | undefined;
}

/** The side panel: the selected node's settings, with a picker of upstream outputs for templates. */
export function NodeConfig({ node, variables, tools, onChange, onDelete, runError }: Props) {
  const config = node.data.config;
  const language = (SANDBOX_LANGUAGES as readonly string[]).includes(String(config.language))
    ? (config.language as SandboxLanguage)
    : "python";
  const set = (key: string, value: unknown) => onChange({ ...config, [key]: value });
  const type = node.data.apiType;
  return (
    <aside className="node-config card" aria-label="Node settings">
      <h2>
        {type} <code>{node.id}</code>
      </h2>
      {node.data.issues?.length ? (
        <ul className="issues" role="alert">
          {node.data.issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      ) : null}
      {type === "start" ? (
        <RowsEditor
          label="Inputs"
          rows={(config.inputs as Row[]) ?? []}
          blank={{ name: "", type: "string", required: false }}
          onChange={(rows) => set("inputs", rows)}
          columns={[
            { key: "name", label: "Name" },
            { key: "type", label: "Type", options: ["string", "number", "boolean", "object", "array"] },
            { key: "required", label: "Required", checkbox: true },
          ]}
        />
      ) : null}
      {type === "end" ? (
        <RowsEditor
          label="Outputs"
          rows={(config.outputs as Row[]) ?? []}
          blank={{ name: "", value: "" }}
          onChange={(rows) => set("outputs", rows)}
          columns={[
            { key: "name", label: "Name" },
            { key: "value", label: "Value", variables },
          ]}
        />
      ) : null}
      {type === "llm" ? <LlmConfig config={config} set={set} variables={variables} /> : null}
      {type === "code" ? (
        <>
          <Field label="Language" hint={`Entry point: ${ENTRY_POINTS[language]}`}>
            <select
              value={language}
              onChange={(e) => {
                const next = e.target.value as SandboxLanguage;
                onChange({
                  ...config,
                  language: next,
                  code: codeAfterLanguageChange(String(config.code ?? ""), next),
                });
              }}
            >
              {SANDBOX_LANGUAGES.map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          </Field>
          <CodeEditor
            label="Code"
            language={language}
            value={String(config.code ?? "")}
            onChange={(code) => set("code", code)}
            errorLine={errorLine(runError?.message)}
            minLines={10}
          />
          {runError ? (
            <p className="field-error" role="alert" data-testid="code-run-error">
              Last run: {runError.message}
            </p>
          ) : null}
          <RowsEditor
            label="Inputs"
            rows={(config.inputs as Row[]) ?? []}
            blank={{ name: "", value: "" }}
            onChange={(rows) => set("inputs", rows)}
            columns={[
              { key: "name", label: "Name" },
              { key: "value", label: "Value", variables },
            ]}
          />
          <RowsEditor
            label="Outputs"
            rows={(config.outputs as Row[]) ?? []}
            blank={{ name: "", type: "string" }}
            onChange={(rows) => set("outputs", rows)}
            columns={[
              { key: "name", label: "Name" },
              { key: "type", label: "Type", options: ["string", "number", "boolean", "object", "array"] },
            ]}
          />
        </>
      ) : null}
      {type === "http" ? <HttpConfig key={node.id} config={config} set={set} variables={variables} /> : null}
      {type === "condition" ? <ConditionConfig config={config} set={set} variables={variables} /> : null}
      {type === "tool" ? (
        <>
          <Field label="Tool">
            <select value={String(config.tool)} onChange={(e) => set("tool", e.target.value)}>
              {tools.map((tool) => (
                <option key={tool.name} value={tool.name}>
                  {tool.name}
                </option>
              ))}
            </select>
          </Field>
          {config.tool === "mcp_tool" ? (
            <McpToolNodeConfig
              args={(config.args ?? {}) as McpArgs}
              variables={variables}
              onChange={(args) => set("args", args)}
            />
          ) : (
            <JsonField
              label="Arguments (JSON; strings may hold templates)"
              value={config.args ?? {}}
              onChange={(v) => set("args", v)}
            />
          )}
        </>
      ) : null}
      {type === "http" || type === "tool" ? (
        <ApprovalSettings extra={node.data.extra} onChange={(extra) => onChange(config, extra)} />
      ) : null}
      {type !== "start" && type !== "end" && type !== "condition" ? (
        <FailureSettings extra={node.data.extra} onChange={(extra) => onChange(config, extra)} />
      ) : null}
      <Button variant="danger" onClick={onDelete}>
        Delete node
      </Button>
    </aside>
  );
}

function LlmConfig({
  config,
  set,
  variables,
}: {
  config: Config;
  set: (k: string, v: unknown) => void;
  variables: string[];
}) {
  const providers = useProviders();
  return (
    <>
      <QueryError query={providers} />
      <div className="row">
        <Field label="Provider">
          <select value={String(config.provider)} onChange={(e) => set("provider", e.target.value)}>
            {providers.data?.data.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Model">
          <input value={String(config.model ?? "")} onChange={(e) => set("model", e.target.value)} />
        </Field>
      </div>
      <ProviderKeyNote providerId={String(config.provider)} />
      <TemplateField
        label="System"
        multiline
        value={String(config.system ?? "")}
        variables={variables}
        onChange={(v) => set("system", v)}
      />
      <TemplateField
        label="Prompt"
        multiline
        value={String(config.prompt ?? "")}
        variables={variables}
        onChange={(v) => set("prompt", v)}
      />
      <KnowledgeBasePicker
        selected={(config.knowledge_base_ids as string[] | undefined) ?? []}
        onChange={(ids) => set("knowledge_base_ids", ids.length ? ids : undefined)}
      />
    </>
  );
}

/** The knowledge bases an LLM node retrieves passages from; with any, it also outputs `citations`. */
function KnowledgeBasePicker({
  selected,
  onChange,
}: {
  selected: string[];
  onChange: (ids: string[]) => void;
}) {
  const bases = useKnowledgeBases();
  return (
    <fieldset className="rows">
      <legend className="field-label">Knowledge bases</legend>
      <QueryError query={bases} />
      {bases.data?.data.length === 0 ? (
        <p className="muted">
          None yet: <Link to="/knowledge">create one</Link> to answer from your documents.
        </p>
      ) : null}
      {bases.data?.data.map((base) => (
        <label key={base.id} className="inline">
          <input
            type="checkbox"
            checked={selected.includes(base.id)}
            onChange={(e) =>
              onChange(e.target.checked ? [...selected, base.id] : selected.filter((id) => id !== base.id))
            }
          />
          {base.name}
        </label>
      ))}
    </fieldset>
  );
}

const OPERATORS = [
  "eq",
  "ne",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "empty",
  "not_empty",
  "matches",
];

function ConditionConfig({
  config,
  set,
  variables,
}: {
  config: Config;
  set: (k: string, v: unknown) => void;
  variables: string[];
}) {
  const cases = (config.cases as { id: string; logic: string; conditions: Row[] }[]) ?? [];
  const update = (index: number, next: (typeof cases)[number]) =>
    set(
      "cases",
      cases.map((c, i) => (i === index ? next : c)),
    );
  return (
    <div>
      {cases.map((c, index) => (
        <fieldset key={c.id} className="case">
          <legend>
            Case <code>{c.id}</code>
          </legend>
          <Field label="Match">
            <select value={c.logic} onChange={(e) => update(index, { ...c, logic: e.target.value })}>
              <option value="and">all conditions</option>
              <option value="or">any condition</option>
            </select>
          </Field>
          <RowsEditor
            label="Conditions"
            rows={c.conditions}
            blank={{ left: "", operator: "eq", right: "" }}
            onChange={(rows) => update(index, { ...c, conditions: rows })}
            columns={[
              { key: "left", label: "Value", variables },
              { key: "operator", label: "Operator", options: OPERATORS },
              { key: "right", label: "Compared with" },
            ]}
          />
          <Button
            variant="danger"
            onClick={() =>
              set(
                "cases",
                cases.filter((_, i) => i !== index),
              )
            }
          >
            Remove case
          </Button>
        </fieldset>
      ))}
      <Button
        variant="secondary"
        onClick={() => {
          let n = cases.length + 1;
          while (cases.some((c) => c.id === `case_${n}`)) n++;
          set("cases", [
            ...cases,
            { id: `case_${n}`, logic: "and", conditions: [{ left: "", operator: "eq", right: "" }] },
          ]);
        }}
      >
        Add case
      </Button>
      <p className="muted">When no case matches, the else handle is taken.</p>
    </div>
  );
}
