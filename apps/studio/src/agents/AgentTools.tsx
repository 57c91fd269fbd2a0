import { CodeEditor } from "../editor/CodeEditor.tsx";
import { codeAfterLanguageChange, SANDBOX_LANGUAGES, TOOL_CODE_TEMPLATES } from "../editor/languages.ts";
import { useKnowledgeBases } from "../knowledge/queries.ts";
import { Button, Field, Link, QueryError } from "../ui/ui.tsx";
import { useWorkflows } from "../workflows/queries.ts";
import {
  HTTP_METHODS,
  type HttpMethod,
  newToolDraft,
  parametersProblem,
  type ToolDraft,
  type ToolType,
} from "./tool-drafts.ts";

/** The API's message for a field path, if the last save was refused there. */
export type ErrorAt = (path: string) => string | undefined;

const LANGUAGE_NAMES = { python: "Python", javascript: "JavaScript", go: "Go", rust: "Rust" } as const;

const TOOL_TYPES: { type: ToolType; label: string; hint: string }[] = [
  {
    type: "knowledge_search",
    label: "Knowledge search",
    hint: "Searches the knowledge bases above; answers cite the passages it finds.",
  },
  { type: "code", label: "Code", hint: "Runs your Python, JavaScript, Go or Rust in the sandbox." },
  { type: "http", label: "HTTP request", hint: "Calls an API with the arguments the model chooses." },
  { type: "workflow", label: "Workflow", hint: "Runs one of your workflows with the model's inputs." },
];

/** The knowledge bases an agent searches: chosen from the workspace's, shown by name, removable. */
export function KnowledgeBasePicker({
  value,
  onChange,
  errorAt,
}: {
  value: string[];
  onChange: (next: string[]) => void;
  errorAt: ErrorAt;
}) {
  const bases = useKnowledgeBases();
  const all = bases.data?.data ?? [];
  const nameOf = (id: string) => all.find((base) => base.id === id)?.name;
  const unchosen = all.filter((base) => !value.includes(base.id));
  return (
    <fieldset className="agent-section" aria-labelledby="kb-picker-title">
      <legend id="kb-picker-title" className="field-label">
        Knowledge bases
      </legend>
      <QueryError query={bases} />
      {value.length === 0 ? (
        <p className="muted">None: the agent answers from its instructions only.</p>
      ) : null}
      <ul className="chips" aria-label="Attached knowledge bases">
        {value.map((id, index) => {
          const message = errorAt(`knowledge_base_ids[${index}]`);
          return (
            <li key={id} className={`chip${message ? " chip-invalid" : ""}`} data-testid="attached-base">
              <Link to={`/knowledge/${id}`}>{nameOf(id) ?? (bases.data ? `${id} (not found)` : id)}</Link>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove ${nameOf(id) ?? id}`}
                onClick={() => onChange(value.filter((each) => each !== id))}
              >
                ×
              </button>
              {message ? (
                <span className="field-error" role="alert">
                  {message}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {errorAt("knowledge_base_ids") ? (
        <p className="field-error" role="alert">
          {errorAt("knowledge_base_ids")}
        </p>
      ) : null}
      {bases.data && all.length === 0 ? (
        <p className="muted">
          No knowledge bases yet: <Link to="/knowledge">create one</Link> and upload documents first.
        </p>
      ) : null}
      {unchosen.length > 0 ? (
        <Field label="Attach a knowledge base">
          <select
            value=""
            onChange={(e) => {
              if (e.target.value) onChange([...value, e.target.value]);
            }}
          >
            <option value="">Choose…</option>
            {unchosen.map((base) => (
              <option key={base.id} value={base.id}>
                {base.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
    </fieldset>
  );
}

/** The agent's tools other than MCP ones: add each type the API offers, set it up, remove it. */
export function ToolsEditor({
  value,
  onChange,
  errorAt,
  hasKnowledgeBases,
}: {
  value: ToolDraft[];
  onChange: (next: ToolDraft[]) => void;
  errorAt: ErrorAt;
  hasKnowledgeBases: boolean;
}) {
  const replace = (index: number, next: ToolDraft) =>
    onChange(value.map((tool, i) => (i === index ? next : tool)));
  const hasSearch = value.some((tool) => tool.type === "knowledge_search");
  return (
    <fieldset className="agent-section" aria-labelledby="tools-title">
      <legend id="tools-title" className="field-label">
        Tools
      </legend>
      {value.length === 0 ? <p className="muted">No tools yet.</p> : null}
      {value.map((tool, index) => (
        <ToolCard
          key={tool.key}
          tool={tool}
          index={index}
          errorAt={errorAt}
          hasKnowledgeBases={hasKnowledgeBases}
          onChange={(next) => replace(index, next)}
          onRemove={() => onChange(value.filter((_, i) => i !== index))}
        />
      ))}
      <div className="row add-tools">
        {TOOL_TYPES.filter((kind) => kind.type !== "knowledge_search" || !hasSearch).map((kind) => (
          <Button
            key={kind.type}
            variant="secondary"
            title={kind.hint}
            onClick={() => onChange([...value, newToolDraft(kind.type, value)])}
          >
            + {kind.label}
          </Button>
        ))}
      </div>
    </fieldset>
  );
}

function ToolCard({
  tool,
  index,
  errorAt,
  hasKnowledgeBases,
  onChange,
  onRemove,
}: {
  tool: ToolDraft;
  index: number;
  errorAt: ErrorAt;
  hasKnowledgeBases: boolean;
  onChange: (next: ToolDraft) => void;
  onRemove: () => void;
}) {
  const at = (field: string) => errorAt(`tools[${index}]${field}`);
  const label = TOOL_TYPES.find((kind) => kind.type === tool.type)?.label ?? tool.type;
  const title = "name" in tool && tool.name ? `${label}: ${tool.name}` : label;
  return (
    <section className="tool-card" aria-label={title} data-testid="agent-tool">
      <div className="tool-card-header">
        <strong>{title}</strong>
        <Button variant="secondary" onClick={onRemove} aria-label={`Remove ${title}`}>
          Remove
        </Button>
      </div>
      {at("") ? (
        <p className="field-error" role="alert">
          {at("")}
        </p>
      ) : null}
      {tool.type === "knowledge_search" ? (
        <>
          {hasKnowledgeBases ? null : (
            <p className="field-hint">Attach a knowledge base above, or the search finds nothing.</p>
          )}
          <Field label="Passages per search" error={at(".top_k")} hint="Empty: 5.">
            <input
              type="number"
              min={1}
              max={50}
              value={tool.top_k ?? ""}
              onChange={(e) =>
                onChange({ ...tool, top_k: e.target.value === "" ? null : Number(e.target.value) })
              }
            />
          </Field>
        </>
      ) : (
        <NamedToolFields tool={tool} at={at} onChange={onChange} />
      )}
      {tool.type === "code" ? <CodeToolFields tool={tool} at={at} onChange={onChange} /> : null}
      {tool.type === "http" ? <HttpToolFields tool={tool} at={at} onChange={onChange} /> : null}
      {tool.type === "workflow" ? <WorkflowToolFields tool={tool} at={at} onChange={onChange} /> : null}
    </section>
  );
}

type Named = Extract<ToolDraft, { name: string }>;
type FieldsProps<T extends ToolDraft> = {
  tool: T;
  at: (field: string) => string | undefined;
  onChange: (next: ToolDraft) => void;
};

function NamedToolFields({ tool, at, onChange }: FieldsProps<Named>) {
  return (
    <div className="row">
      <Field
        label="Tool name"
        error={at(".name")}
        hint="Letters, digits, _ or -; the model calls it by this."
      >
        <input value={tool.name} onChange={(e) => onChange({ ...tool, name: e.target.value })} required />
      </Field>
      <Field
        label="What it does"
        error={at(".description")}
        hint="The model reads this to decide when to call it."
      >
        <input
          value={tool.description}
          maxLength={1000}
          onChange={(e) => onChange({ ...tool, description: e.target.value })}
        />
      </Field>
    </div>
  );
}

function ParametersField({
  tool,
  at,
  onChange,
}: FieldsProps<Extract<ToolDraft, { parametersText: string }>>) {
  const problem = parametersProblem(tool.parametersText);
  return (
    <CodeEditor
      label={`Parameters of ${tool.name || "the tool"} (JSON Schema)`}
      language="json"
      value={tool.parametersText}
      onChange={(text) => onChange({ ...tool, parametersText: text })}
      minLines={4}
      error={at(".parameters") ?? (problem ? `Parameters ${problem}` : undefined)}
    />
  );
}

function CodeToolFields({ tool, at, onChange }: FieldsProps<Extract<ToolDraft, { type: "code" }>>) {
  return (
    <>
      <Field label="Language" error={at(".language")}>
        <select
          value={tool.language}
          onChange={(e) => {
            const next = e.target.value as (typeof SANDBOX_LANGUAGES)[number];
            onChange({
              ...tool,
              language: next,
              code: codeAfterLanguageChange(tool.code, next, TOOL_CODE_TEMPLATES),
            });
          }}
        >
          {SANDBOX_LANGUAGES.map((language) => (
            <option key={language} value={language}>
              {LANGUAGE_NAMES[language]}
            </option>
          ))}
        </select>
      </Field>
      <CodeEditor
        label={`Code of ${tool.name || "the tool"}`}
        language={tool.language}
        value={tool.code}
        onChange={(code) => onChange({ ...tool, code })}
        minLines={6}
        error={at(".code")}
      />
      <ParametersField tool={tool} at={at} onChange={onChange} />
    </>
  );
}

function HttpToolFields({ tool, at, onChange }: FieldsProps<Extract<ToolDraft, { type: "http" }>>) {
  const setHeader = (index: number, next: { name: string; value: string } | null) =>
    onChange({
      ...tool,
      headers: next
        ? tool.headers.map((header, i) => (i === index ? next : header))
        : tool.headers.filter((_, i) => i !== index),
    });
  return (
    <>
      <div className="row">
        <Field label="Method" error={at(".method")}>
          <select
            value={tool.method}
            onChange={(e) => onChange({ ...tool, method: e.target.value as HttpMethod })}
          >
            {HTTP_METHODS.map((method) => (
              <option key={method}>{method}</option>
            ))}
          </select>
        </Field>
        <Field
          label="URL"
          error={at(".url")}
          hint="{name} in the URL takes that argument; the others go in the query (GET, DELETE) or the JSON body."
        >
          <input
            type="url"
            value={tool.url}
            placeholder="https://api.example.com/items/{id}"
            onChange={(e) => onChange({ ...tool, url: e.target.value })}
            required
          />
        </Field>
      </div>
      <fieldset className="headers">
        <legend className="field-label">Headers</legend>
        {tool.headers.map((header, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          <div key={index} className="row">
            <input
              aria-label={`Header ${index + 1} name`}
              placeholder="Authorization"
              value={header.name}
              onChange={(e) => setHeader(index, { ...header, name: e.target.value })}
            />
            <input
              aria-label={`Header ${index + 1} value`}
              value={header.value}
              onChange={(e) => setHeader(index, { ...header, value: e.target.value })}
            />
            <Button
              variant="secondary"
              aria-label={`Remove header ${index + 1}`}
              onClick={() => setHeader(index, null)}
            >
              ×
            </Button>
          </div>
        ))}
        {at(".headers") ? (
          <span className="field-error" role="alert">
            {at(".headers")}
          </span>
        ) : null}
        <Button
          variant="secondary"
          onClick={() => onChange({ ...tool, headers: [...tool.headers, { name: "", value: "" }] })}
        >
          + Header
        </Button>
      </fieldset>
      <ParametersField tool={tool} at={at} onChange={onChange} />
    </>
  );
}

function WorkflowToolFields({ tool, at, onChange }: FieldsProps<Extract<ToolDraft, { type: "workflow" }>>) {
  const workflows = useWorkflows();
  const all = workflows.data?.data ?? [];
  const isMissing = tool.workflow_id !== "" && workflows.data && !all.some((w) => w.id === tool.workflow_id);
  return (
    <>
      <QueryError query={workflows} />
      <Field
        label="Workflow"
        error={at(".workflow_id")}
        hint="It runs with the inputs the model passes and answers its outputs."
      >
        <select
          value={tool.workflow_id}
          onChange={(e) => onChange({ ...tool, workflow_id: e.target.value })}
          required
        >
          <option value="">Choose…</option>
          {isMissing ? <option value={tool.workflow_id}>{tool.workflow_id} (not found)</option> : null}
          {all.map((workflow) => (
            <option key={workflow.id} value={workflow.id}>
              {workflow.name}
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}
