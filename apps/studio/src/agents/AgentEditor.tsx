import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { isEditConflict } from "../api/client.ts";
import type { Agent } from "../api/schema.gen.ts";
import { PublishPanel } from "../apps/PublishPanel.tsx";
import { type Conflict, ConflictDialog } from "../history/ConflictDialog.tsx";
import { type AgentContent, diffAgents } from "../history/diff.ts";
import { HistoryDrawer } from "../history/HistoryDrawer.tsx";
import { useRestore } from "../history/queries.ts";
import { isMcpAgentTool, type McpAgentTool, McpToolPicker } from "../mcp/McpToolPicker.tsx";
import { navigate } from "../router.ts";
import { ProviderKeyNote } from "../settings/ProviderKeyNote.tsx";
import { Toast, type ToastMessage } from "../ui/Toast.tsx";
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
import { useUnsavedGuard } from "../workflows/useUnsavedGuard.ts";
import { KnowledgeBasePicker, ToolsEditor } from "./AgentTools.tsx";
import {
  type AgentInput,
  fetchAgent,
  isChatModel,
  patchAgent,
  type TaggedAgent,
  useAgent,
  useDefaultModel,
  useDeleteAgent,
  useProviderModels,
  useProviders,
  useSaveAgent,
} from "./queries.ts";
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

/** What the form holds, as the API takes it (tools edited here first, then MCP ones). */
interface FormState {
  form: AgentInput;
  tools: ToolDraft[];
  mcpTools: McpAgentTool[];
  knowledgeBaseIds: string[];
}

function stateOf(agent: AgentInput & { tools?: unknown[]; knowledge_base_ids?: string[] }): FormState {
  const tools = agent.tools ?? [];
  return {
    form: {
      name: agent.name,
      description: agent.description,
      provider: agent.provider,
      model: agent.model,
      instructions: agent.instructions,
      temperature: agent.temperature,
      memory_turns: agent.memory_turns,
      mcp_exposed: agent.mcp_exposed,
    },
    tools: tools.flatMap((tool) => toToolDraft(tool) ?? []),
    mcpTools: tools.filter(isMcpAgentTool),
    knowledgeBaseIds: agent.knowledge_base_ids ?? [],
  };
}

/** The body a save sends; undefined while a tool's parameters are not JSON. */
function payloadOf(state: FormState): Required<AgentInput> | undefined {
  try {
    return {
      ...state.form,
      tools: [...state.tools.map(fromToolDraft), ...state.mcpTools],
      knowledge_base_ids: state.knowledgeBaseIds,
    };
  } catch {
    return undefined;
  }
}

/** What a version keeps of an agent, from a save's body or an answer. */
function contentOf(agent: Required<AgentInput> | Agent): AgentContent {
  return {
    name: agent.name,
    description: agent.description,
    provider: agent.provider,
    model: agent.model,
    instructions: agent.instructions,
    temperature: agent.temperature,
    tools: agent.tools,
    knowledge_base_ids: agent.knowledge_base_ids,
    memory_turns: agent.memory_turns,
  };
}

export function AgentEditor({ id }: { id?: string }) {
  const agent = useAgent(id);
  const providers = useProviders();
  const save = useSaveAgent(id);
  const remove = useDeleteAgent();
  const restore = useRestore<Agent>(id ? { kind: "agent", id } : { kind: "agent", id: "" });
  const [form, setForm] = useState<AgentInput>(EMPTY);
  const [mcpTools, setMcpTools] = useState<McpAgentTool[]>([]);
  const [tools, setTools] = useState<ToolDraft[]>([]);
  const [knowledgeBaseIds, setKnowledgeBaseIds] = useState<string[]>([]);
  // The revision the form is based on: saves send it as If-Match, so nobody's save is overwritten unseen.
  const [base, setBase] = useState<{ etag: string | undefined; saved: string; agent: TaggedAgent | null }>(
    () => ({
      etag: undefined,
      saved: JSON.stringify(payloadOf(stateOf(EMPTY))),
      agent: null,
    }),
  );
  const [conflict, setConflict] = useState<(Conflict & { theirs: TaggedAgent }) | null>(null);
  const [isHistoryOpen, setHistoryOpen] = useState(false);
  const [toast, setToast] = useState<ToastMessage | null>(null);
  const dismissToast = useCallback(() => setToast(null), []);

  const payload = useMemo(
    () => payloadOf({ form, tools, mcpTools, knowledgeBaseIds }),
    [form, tools, mcpTools, knowledgeBaseIds],
  );
  const isDirty = JSON.stringify(payload) !== base.saved;
  useUnsavedGuard(isDirty);

  /** Shows a revision of the agent in the form, as the base of the next edits. */
  const adopt = useCallback((next: TaggedAgent) => {
    const state = stateOf(next);
    setForm(state.form);
    setMcpTools(state.mcpTools);
    setTools(state.tools);
    setKnowledgeBaseIds(state.knowledgeBaseIds);
    setBase({ etag: next.etag, saved: JSON.stringify(payloadOf(state)), agent: next });
  }, []);

  // The form takes the server's agent when it is first loaded, and later when the agent changed and
  // nothing is being edited (publishing reads it again and must not drop what is typed; someone
  // else's save must not replace unsaved edits, which the next save then shows as a conflict).
  const shownUpdate = useRef<string | null>(null);
  const isDirtyNow = useRef(isDirty);
  isDirtyNow.current = isDirty;
  useEffect(() => {
    if (!agent.data || agent.data.updated_at === shownUpdate.current) return;
    if (shownUpdate.current !== null && isDirtyNow.current) return;
    shownUpdate.current = agent.data.updated_at;
    adopt(agent.data);
  }, [agent.data, adopt]);

  const adoptSaved = (next: TaggedAgent) => {
    shownUpdate.current = next.updated_at;
    adopt(next);
  };

  const showConflict = async (mine: Required<AgentInput>) => {
    if (!id) return;
    const theirs = await fetchAgent(id);
    const loaded = base.agent ? contentOf(base.agent) : contentOf(theirs);
    setConflict({
      theirs,
      theirChanges: diffAgents(loaded, contentOf(theirs)),
      myChanges: diffAgents(contentOf(theirs), contentOf(mine)),
    });
  };

  const saveWith = (ifMatch: string | undefined) => {
    if (!payload) return;
    const mine = payload;
    save.mutate(
      { ...mine, ifMatch },
      {
        onSuccess: (saved) => {
          adoptSaved(saved);
          setConflict(null);
          navigate(`/agents/${saved.id}`, { replace: true, force: true });
        },
        onError: (error) => {
          if (isEditConflict(error)) void showConflict(mine);
        },
      },
    );
  };

  const restoreVersion = (version: number) => {
    if (!id || !base.agent) return;
    const previous = contentOf(base.agent);
    restore.mutate(
      { version, ifMatch: base.etag },
      {
        onSuccess: ({ data, etag }) => {
          setHistoryOpen(false);
          const restored = { ...data, etag: etag ?? undefined };
          adoptSaved(restored);
          const text = `Restored version ${version} into the draft.`;
          const undo = async () => {
            setToast({ text, action: { label: "Undo", onClick: () => undefined, isBusy: true } });
            try {
              adoptSaved(await patchAgent(id, previous, restored.etag));
              setToast({
                text: `Undone: the draft is back as it was before version ${version} was restored.`,
              });
            } catch (error) {
              setToast({
                text: isEditConflict(error)
                  ? "Not undone: someone changed the agent since. Open History to compare and restore."
                  : `Not undone: ${error instanceof Error ? error.message : String(error)}`,
              });
            }
          };
          setToast({ text, action: { label: "Undo", onClick: () => void undo() } });
        },
      },
    );
  };

  // A new agent starts on the provider the workspace has a key for, not on OpenAI; once, and only
  // while the user has not picked one.
  const defaults = useDefaultModel();
  const isDefaulted = useRef(false);
  useEffect(() => {
    if (id || !defaults || isDefaulted.current) return;
    isDefaulted.current = true;
    setForm((current) =>
      current.provider === EMPTY.provider && current.model === EMPTY.model
        ? { ...current, ...defaults }
        : current,
    );
  }, [id, defaults]);
  const models = useProviderModels(form.provider || undefined);

  if (id && agent.isPending) return <Loading what="the agent" />;
  if (id && agent.error) return <QueryError query={agent} />;

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
    saveWith(base.etag);
  };

  return (
    <>
      <PageHeader
        // The saved name, not the one being typed: a failed save must not look like it took.
        title={id ? agent.data?.name || "Agent" : "New agent"}
        actions={
          id ? (
            <>
              {isDirty ? <span className="badge">unsaved</span> : null}
              <Button variant="secondary" onClick={() => setHistoryOpen(true)}>
                History
              </Button>
              <a className="btn btn-secondary" href={`/api/agents/${id}/export`} download>
                Export
              </a>
              <Button
                variant="danger"
                isBusy={remove.isPending}
                onClick={() => {
                  if (confirm("Delete this agent?"))
                    remove.mutate(id, { onSuccess: () => navigate("/agents", { force: true }) });
                }}
              >
                Delete
              </Button>
            </>
          ) : null
        }
      />
      {id ? (
        <>
          <ConflictDialog
            what="agent"
            conflict={conflict}
            isOverwriting={save.isPending}
            error={save.error && !isEditConflict(save.error) ? save.error : null}
            onOverwrite={() => saveWith(conflict?.theirs.etag)}
            onReload={() => {
              if (conflict) adoptSaved(conflict.theirs);
              setConflict(null);
            }}
            onKeepEditing={() => setConflict(null)}
          />
          <HistoryDrawer
            target={{ kind: "agent", id }}
            isOpen={isHistoryOpen}
            onClose={() => {
              setHistoryOpen(false);
              restore.reset();
            }}
            onRestore={restoreVersion}
            isRestoring={restore.isPending}
            restoreError={restore.error}
            hasUnsavedChanges={isDirty}
          />
          <Toast message={toast} onDismiss={dismissToast} />
        </>
      ) : null}
      <form className="card" onSubmit={submit} aria-label="Agent">
        <ErrorBox error={remove.error} />
        <QueryError query={providers} />
        <FormError
          error={save.error && !isEditConflict(save.error) ? save.error : null}
          fields={shownFields}
        />
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
                setForm({
                  ...form,
                  provider: e.target.value,
                  model: next?.models.find(isChatModel)?.id ?? "",
                });
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
          <datalist id="models" data-testid="model-suggestions">
            {models.data?.data.filter(isChatModel).map((m) => (
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
        <Button type="submit" isBusy={save.isPending}>
          {id ? "Save" : "Create agent"}
        </Button>
      </form>
      {id && agent.data ? <PublishPanel target={{ kind: "agent", id }} state={agent.data} /> : null}
    </>
  );
}
