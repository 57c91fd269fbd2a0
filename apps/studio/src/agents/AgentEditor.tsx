import { type FormEvent, useEffect, useRef, useState } from "react";
import { PublishPanel } from "../apps/PublishPanel.tsx";
import { isMcpAgentTool, type McpAgentTool, McpToolPicker } from "../mcp/McpToolPicker.tsx";
import { navigate } from "../router.ts";
import { ProviderKeyNote } from "../settings/ProviderKeyNote.tsx";
import {
  Button,
  ErrorBox,
  Field,
  FormError,
  fieldErrors,
  Loading,
  PageHeader,
  QueryError,
} from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { KnowledgeBasePicker, ToolsEditor } from "./AgentTools.tsx";
import { type AgentInput, useAgent, useDeleteAgent, useProviders, useSaveAgent } from "./queries.ts";
import {
  fromToolDraft,
  parametersProblem,
  type ToolDraft,
  toolFieldPaths,
  toToolDraft,
} from "./tool-drafts.ts";

const EMPTY: AgentInput = {
  name: "",
  description: "",
  provider: "openai",
  model: "gpt-4o-mini",
  instructions: "",
  temperature: null,
  memory_turns: 10,
  mcp_exposed: false,
};

const FIELDS = [
  "name",
  "description",
  "provider",
  "model",
  "instructions",
  "temperature",
  "memory_turns",
  "tools",
  "knowledge_base_ids",
];

export function AgentEditor({ id }: { id?: string }) {
  const agent = useAgent(id);
  const providers = useProviders();
  const save = useSaveAgent(id);
  const remove = useDeleteAgent();
  const [form, setForm] = useState<AgentInput>(EMPTY);
  const [mcpTools, setMcpTools] = useState<McpAgentTool[]>([]);
  const [tools, setTools] = useState<ToolDraft[]>([]);
  const [knowledgeBaseIds, setKnowledgeBaseIds] = useState<string[]>([]);

  // The form takes the server's agent when the agent changed (loaded, saved), not when only its
  // publishing did: publishing reads the agent again, and must not drop what is being typed.
  const shownUpdate = useRef<string | null>(null);
  useEffect(() => {
    if (agent.data && agent.data.updated_at !== shownUpdate.current) {
      shownUpdate.current = agent.data.updated_at;
      setForm(agent.data);
      setMcpTools(agent.data.tools.filter(isMcpAgentTool));
      setTools(agent.data.tools.flatMap((tool) => toToolDraft(tool) ?? []));
      setKnowledgeBaseIds(agent.data.knowledge_base_ids);
    }
  }, [agent.data]);

  if (id && agent.isPending) return <Loading what="the agent" />;
  if (id && agent.error) return <QueryError query={agent} />;

  const provider = providers.data?.data.find((p) => p.id === form.provider);
  const error = fieldErrors(save.error);
  const set = <K extends keyof AgentInput>(key: K, value: AgentInput[K]) =>
    setForm({ ...form, [key]: value });

  // The API's paths count tools in the order sent: the ones edited here first, then MCP ones.
  const shownFields = [
    ...FIELDS,
    ...tools.flatMap((_, index) => toolFieldPaths(index)),
    ...knowledgeBaseIds.map((_, index) => `knowledge_base_ids[${index}]`),
  ];
  const hasBadParameters = tools.some(
    (tool) => "parametersText" in tool && parametersProblem(tool.parametersText) !== null,
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Each broken parameters field already says why beside itself.
    if (hasBadParameters) return;
    save.mutate(
      {
        name: form.name,
        description: form.description,
        provider: form.provider,
        model: form.model,
        instructions: form.instructions,
        temperature: form.temperature,
        memory_turns: form.memory_turns,
        mcp_exposed: form.mcp_exposed,
        tools: [...tools.map(fromToolDraft), ...mcpTools],
        knowledge_base_ids: knowledgeBaseIds,
      },
      { onSuccess: (saved) => navigate(`/agents/${saved.id}`, { replace: true }) },
    );
  };

  return (
    <>
      <PageHeader
        // The saved name, not the one being typed: a failed save must not look like it took.
        title={id ? agent.data?.name || "Agent" : "New agent"}
        actions={
          id ? (
            <Guarded>
              <Button
                variant="danger"
                isBusy={remove.isPending}
                onClick={() => {
                  if (confirm("Delete this agent?"))
                    remove.mutate(id, { onSuccess: () => navigate("/agents") });
                }}
              >
                Delete
              </Button>
            </Guarded>
          ) : null
        }
      />
      <form className="card" onSubmit={submit} aria-label="Agent">
        <ErrorBox error={remove.error} />
        <QueryError query={providers} />
        <FormError error={save.error} fields={shownFields} />
        <Field label="Name" error={error?.fieldMessage("name")}>
          <input name="name" value={form.name} onChange={(e) => set("name", e.target.value)} required />
        </Field>
        <Field label="Description" error={error?.fieldMessage("description")}>
          <input
            name="description"
            value={form.description}
            onChange={(e) => set("description", e.target.value)}
          />
        </Field>
        <div className="row">
          <Field label="Provider" error={error?.fieldMessage("provider")}>
            <select
              name="provider"
              value={form.provider}
              onChange={(e) => {
                const next = providers.data?.data.find((p) => p.id === e.target.value);
                setForm({ ...form, provider: e.target.value, model: next?.models[0]?.id ?? "" });
              }}
            >
              {providers.data?.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Model" error={error?.fieldMessage("model")} hint="Any model id the provider serves.">
            <input
              name="model"
              list="models"
              value={form.model}
              onChange={(e) => set("model", e.target.value)}
              required
            />
          </Field>
          <ProviderKeyNote providerId={form.provider} />
          <datalist id="models">
            {provider?.models
              .filter((m) => m.capabilities.includes("chat"))
              .map((m) => (
                <option key={m.id} value={m.id} />
              ))}
          </datalist>
        </div>
        <Field label="Instructions" error={error?.fieldMessage("instructions")}>
          <textarea
            name="instructions"
            value={form.instructions}
            onChange={(e) => set("instructions", e.target.value)}
          />
        </Field>
        <div className="row">
          <Field
            label="Temperature"
            error={error?.fieldMessage("temperature")}
            hint="Empty uses the model's default."
          >
            <input
              name="temperature"
              type="number"
              min={0}
              max={2}
              step={0.1}
              value={form.temperature ?? ""}
              onChange={(e) => set("temperature", e.target.value === "" ? null : Number(e.target.value))}
            />
          </Field>
          <Field label="Memory (turns)" error={error?.fieldMessage("memory_turns")}>
            <input
              name="memory_turns"
              type="number"
              min={0}
              max={100}
              value={form.memory_turns}
              onChange={(e) => set("memory_turns", Number(e.target.value))}
            />
          </Field>
        </div>
        <KnowledgeBasePicker
          value={knowledgeBaseIds}
          onChange={setKnowledgeBaseIds}
          errorAt={(path) => error?.fieldMessage(path)}
        />
        <ToolsEditor
          value={tools}
          onChange={setTools}
          errorAt={(path) => error?.fieldMessage(path)}
          hasKnowledgeBases={knowledgeBaseIds.length > 0}
        />
        <McpToolPicker value={mcpTools} onChange={setMcpTools} />
        {error?.fieldMessage("tools") ? <p className="field-error">{error.fieldMessage("tools")}</p> : null}
        <label className="checkbox-line">
          <input
            type="checkbox"
            name="mcp_exposed"
            checked={form.mcp_exposed}
            onChange={(e) => set("mcp_exposed", e.target.checked)}
          />
          <span>
            Serve this agent as a tool of the workspace's MCP endpoint (<code>/api/mcp</code>, with an API
            key)
          </span>
        </label>
        {hasBadParameters ? (
          <p className="field-error" role="alert">
            Fix the tool parameters marked above before saving.
          </p>
        ) : null}
        <Guarded>
          <Button type="submit" isBusy={save.isPending}>
            {id ? "Save" : "Create agent"}
          </Button>
        </Guarded>
      </form>
      {id && agent.data ? <PublishPanel target={{ kind: "agent", id }} state={agent.data} /> : null}
    </>
  );
}
