import {
  addEdge,
  Background,
  type Connection,
  Controls,
  type Edge,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useReactFlow,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { type DragEvent, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "../api/client.ts";
import { navigate } from "../router.ts";
import { Button, ErrorBox, Loading, QueryError } from "../ui/ui.tsx";
import {
  type ApiGraph,
  autoLayout,
  defaultData,
  type EditorNode,
  NODE_TYPES,
  type NodeType,
  nextNodeId,
  outputsOf,
  toApi,
  toEditor,
  upstreamOf,
} from "./graph.ts";
import { NodeConfig } from "./NodeConfig.tsx";
import { NodeRunInspector } from "./NodeRunInspector.tsx";
import {
  type GraphIssue,
  useExposeWorkflow,
  useSaveWorkflow,
  useTools,
  useWorkflow,
  validateGraph,
  type Workflow,
} from "./queries.ts";
import { type NodeRunView, RunPanel } from "./RunPanel.tsx";
import { StepNode } from "./StepNode.tsx";
import { useHistory } from "./useHistory.ts";

const nodeTypes = { step: StepNode };
/** Room around the graph when fitting, so edge nodes are never cut by the canvas border or controls. */
const FIT = { padding: 0.15, minZoom: 0.02, maxZoom: 1.25 };
/** Far enough out to see a thousand-node workflow whole. */
const MIN_ZOOM = 0.02;

type Panels = { palette: boolean; side: boolean };

/** Which side panels are open, remembered across visits. */
function useStoredPanels(): [Panels, (next: Panels) => void] {
  const [panels, setPanels] = useState<Panels>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem("editor-panels") ?? "null") as Partial<Panels> | null;
      return { palette: stored?.palette ?? true, side: stored?.side ?? true };
    } catch {
      return { palette: true, side: true };
    }
  });
  return [
    panels,
    (next) => {
      setPanels(next);
      localStorage.setItem("editor-panels", JSON.stringify(next));
    },
  ];
}
const DRAG_TYPE = "application/x-workflow-node";

export function WorkflowEditor({ id }: { id: string }) {
  const workflow = useWorkflow(id);
  if (workflow.isPending) return <Loading what="the workflow" />;
  if (workflow.error) return <QueryError query={workflow} />;
  return (
    <ReactFlowProvider>
      <Editor workflow={workflow.data} />
    </ReactFlowProvider>
  );
}

type Snapshot = { nodes: EditorNode[]; edges: Edge[] };

function Editor({ workflow }: { workflow: Workflow }) {
  const initial = useMemo(() => toEditor(workflow.graph), [workflow.graph]);
  const [nodes, setNodes, onNodesChange] = useNodesState<EditorNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [name, setName] = useState(workflow.name);
  const [savedJson, setSavedJson] = useState(() => fingerprint(workflow.name, workflow.graph));
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [issues, setIssues] = useState<GraphIssue[]>([]);
  const [runStates, setRunStates] = useState<Record<string, NodeRunView>>({});
  // The runs page opens a past run here with ?run=<id>.
  const [initialRunId] = useState(() => new URLSearchParams(window.location.search).get("run"));
  const clipboard = useRef<EditorNode[]>([]);
  const history = useHistory<Snapshot>();
  const flow = useReactFlow<EditorNode, Edge>();
  const tools = useTools();
  const save = useSaveWorkflow(workflow.id);
  const expose = useExposeWorkflow(workflow.id);
  const [isExposed, setExposed] = useState(workflow.mcp_exposed);
  const [panels, setPanels] = useStoredPanels();

  // React Flow measures moved nodes on the next render; fitting before that would frame the old
  // positions and clip the new ones, so fit after two frames.
  const fitSoon = useCallback(() => {
    requestAnimationFrame(() => requestAnimationFrame(() => void flow.fitView(FIT)));
  }, [flow]);
  // Showing or hiding a panel resizes the canvas: frame the graph again (not on mount, where
  // React Flow's own fitView frames it; a second fit would move the nodes under the user's mouse).
  const panelsShown = useRef(`${panels.palette}${panels.side}`);
  useEffect(() => {
    const now = `${panels.palette}${panels.side}`;
    if (now === panelsShown.current) return;
    panelsShown.current = now;
    fitSoon();
  }, [panels.palette, panels.side, fitSoon]);

  // Dragging a node changes `nodes` every frame; the API form, the unsaved-changes check and
  // validation follow a frame or more behind instead of costing every frame their work.
  const deferredNodes = useDeferredValue(nodes);
  const deferredEdges = useDeferredValue(edges);
  const graph = useMemo(() => toApi(deferredNodes, deferredEdges), [deferredNodes, deferredEdges]);
  const isDirty = useMemo(() => fingerprint(name, graph) !== savedJson, [name, graph, savedJson]);
  const toolOutputs = useMemo(
    () => Object.fromEntries((tools.data?.data ?? []).map((tool) => [tool.name, tool.outputs])),
    [tools.data],
  );

  const snapshot = useCallback((): Snapshot => ({ nodes, edges }), [nodes, edges]);
  const change = useCallback(
    (next: Snapshot) => {
      history.record(snapshot());
      setNodes(next.nodes);
      setEdges(next.edges);
    },
    [history, snapshot, setNodes, setEdges],
  );

  // Validation as you edit: the server's rules, shown on the nodes they name.
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      validateGraph(graph, controller.signal)
        .then((result) => setIssues(result.issues))
        .catch(() => undefined);
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [graph]);

  useEffect(() => {
    if (!isDirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [isDirty]);

  // A node keeps its display object while neither it, its issues nor its run status changed, so
  // dragging one node re-renders that node alone.
  const displayCache = useRef(new WeakMap<EditorNode, { key: string; node: EditorNode }>());
  const displayNodes = useMemo(
    () =>
      nodes.map((node) => {
        const nodeIssues = issues.filter((issue) => issue.node_id === node.id).map((issue) => issue.message);
        const runStatus = runStates[node.id]?.status;
        const key = `${runStatus ?? ""}\n${nodeIssues.join("\n")}`;
        const cached = displayCache.current.get(node);
        if (cached?.key === key) return cached.node;
        const display = {
          ...node,
          data: {
            ...node.data,
            ...(nodeIssues.length ? { issues: nodeIssues } : { issues: [] }),
            ...(runStatus ? { runStatus } : {}),
          },
        };
        displayCache.current.set(node, { key, node: display });
        return display;
      }),
    [nodes, issues, runStates],
  );

  const addNode = useCallback(
    (type: NodeType, position?: { x: number; y: number }) => {
      const id = nextNodeId(type, nodes);
      const at =
        position ?? flow.screenToFlowPosition({ x: window.innerWidth / 2, y: window.innerHeight / 2 });
      const node: EditorNode = {
        id,
        type: "step",
        position: at,
        data: { apiType: type, config: defaultData(type), extra: {} },
      };
      change({ nodes: [...nodes, node], edges });
      setSelectedId(id);
    },
    [nodes, edges, flow, change],
  );

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const type = event.dataTransfer.getData(DRAG_TYPE) as NodeType;
    if (!type) return;
    addNode(type, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };

  const onConnect = useCallback(
    (connection: Connection) => {
      const id = `e_${connection.source}_${connection.sourceHandle ?? "out"}_${connection.target}`;
      change({ nodes, edges: addEdge({ ...connection, id }, edges) });
    },
    [nodes, edges, change],
  );

  const undo = () => {
    const previous = history.undo(snapshot());
    if (previous) {
      setNodes(previous.nodes);
      setEdges(previous.edges);
    }
  };
  const redo = () => {
    const next = history.redo(snapshot());
    if (next) {
      setNodes(next.nodes);
      setEdges(next.edges);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    const target = event.target as HTMLElement;
    // Keys pressed in a dialog, a menu or elsewhere outside the page body's editor are not ours.
    if (target !== document.body && !target.closest(".editor")) return;
    // Text fields and the code editor keep their own undo, select-all and clipboard.
    if (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable) return;
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.key.toLowerCase() === "a") {
      event.preventDefault();
      setNodes(nodes.map((node) => (node.selected ? node : { ...node, selected: true })));
      setEdges(edges.map((edge) => (edge.selected ? edge : { ...edge, selected: true })));
    } else if (event.key === "Escape") {
      setNodes(nodes.map((node) => (node.selected ? { ...node, selected: false } : node)));
      setEdges(edges.map((edge) => (edge.selected ? { ...edge, selected: false } : edge)));
      setSelectedId(null);
    } else if (mod && event.key.toLowerCase() === "z") {
      event.preventDefault();
      if (event.shiftKey) redo();
      else undo();
    } else if (mod && event.key.toLowerCase() === "y") {
      event.preventDefault();
      redo();
    } else if (mod && event.key.toLowerCase() === "c") {
      clipboard.current = nodes.filter((node) => node.selected && node.data.apiType !== "start");
    } else if (mod && event.key.toLowerCase() === "v" && clipboard.current.length > 0) {
      const pasted: EditorNode[] = [];
      for (const node of clipboard.current) {
        const id = nextNodeId(node.data.apiType, [...nodes, ...pasted]);
        pasted.push({
          ...node,
          id,
          selected: true,
          position: { x: node.position.x + 40, y: node.position.y + 40 },
        });
      }
      change({ nodes: [...nodes.map((node) => ({ ...node, selected: false })), ...pasted], edges });
    }
  };

  // On the window, so the shortcuts work right after clicking the canvas's empty pane (which
  // takes no focus) as well as with a node focused.
  const keyHandler = useRef(onKeyDown);
  keyHandler.current = onKeyDown;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => keyHandler.current(event);
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);

  const saveNow = () => {
    save.mutate(
      { name, graph: toApi(nodes, edges) },
      {
        onSuccess: (saved) => setSavedJson(fingerprint(saved.name, saved.graph)),
        onError: (error) => {
          if (error instanceof ApiError) {
            setIssues(
              error.details.map((detail) => ({
                path: detail.path,
                message: detail.message,
                ...(typeof (detail as GraphIssue).node_id === "string"
                  ? { node_id: (detail as GraphIssue).node_id }
                  : {}),
              })),
            );
          }
        },
      },
    );
  };

  const selected = nodes.find((node) => node.id === selectedId);
  const variables = selected
    ? nodes
        .filter((node) => upstreamOf(selected.id, edges).has(node.id))
        .flatMap((node) => outputsOf(node, toolOutputs).map((field) => `{{${node.id}.${field}}}`))
    : [];
  const graphIssues = issues.filter((issue) => !issue.node_id);

  return (
    <div className="editor" role="application" aria-label="Workflow editor">
      <header className="editor-toolbar">
        <a
          href="/workflows"
          onClick={(e) => {
            e.preventDefault();
            if (!isDirty || confirm("Leave without saving your changes?")) navigate("/workflows");
          }}
        >
          ← Workflows
        </a>
        <input
          className="editor-name"
          aria-label="Workflow name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        {isDirty ? <span className="badge">unsaved</span> : <span className="badge">saved</span>}
        <Button variant="secondary" onClick={undo} disabled={!history.canUndo}>
          Undo
        </Button>
        <Button variant="secondary" onClick={redo} disabled={!history.canRedo}>
          Redo
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            change({ nodes: autoLayout(nodes, edges), edges });
            fitSoon();
          }}
        >
          Auto-layout
        </Button>
        <Button variant="secondary" onClick={() => void flow.fitView(FIT)}>
          Zoom to fit
        </Button>
        <label className="editor-toggle" title="Serve this workflow as a tool of /api/mcp (with an API key)">
          <input
            type="checkbox"
            checked={isExposed}
            disabled={expose.isPending}
            onChange={(e) => {
              // Shown at once: the mutation's own state arrives a tick later, and a controlled
              // checkbox would flick back in between. A failed save puts it back (and says why below).
              const wanted = e.target.checked;
              setExposed(wanted);
              expose.mutate(wanted, { onError: () => setExposed(!wanted) });
            }}
          />
          Serve over MCP
        </label>
        <Button
          variant="secondary"
          aria-pressed={panels.palette}
          onClick={() => setPanels({ ...panels, palette: !panels.palette })}
        >
          {panels.palette ? "Hide palette" : "Show palette"}
        </Button>
        <Button
          variant="secondary"
          aria-pressed={panels.side}
          onClick={() => setPanels({ ...panels, side: !panels.side })}
        >
          {panels.side ? "Hide panel" : "Show panel"}
        </Button>
        <a className="btn btn-secondary" href={`/api/workflows/${workflow.id}/export`} download>
          Export
        </a>
        <Button onClick={saveNow} isBusy={save.isPending} disabled={!isDirty}>
          Save
        </Button>
      </header>
      {expose.error ? <ErrorBox error={expose.error} /> : null}
      {save.error && !(save.error instanceof ApiError && save.error.details.length) ? (
        <ErrorBox error={save.error} />
      ) : null}
      <QueryError query={tools} />
      {graphIssues.length > 0 ? (
        <div className="error-box" role="alert">
          {graphIssues.map((issue) => issue.message).join(" · ")}
        </div>
      ) : null}
      <div
        className={`editor-body${panels.palette ? "" : " no-palette"}${panels.side ? "" : " no-side"}`}
        data-testid="editor-body"
      >
        <nav className="palette card" aria-label="Node palette" hidden={!panels.palette}>
          {NODE_TYPES.map((entry) => (
            <button
              type="button"
              key={entry.type}
              className="palette-item"
              draggable
              data-testid={`palette-${entry.type}`}
              onDragStart={(event) => {
                event.dataTransfer.setData(DRAG_TYPE, entry.type);
                event.dataTransfer.effectAllowed = "move";
              }}
              onClick={() => addNode(entry.type)}
              title={`${entry.hint} (drag onto the canvas, or click to add)`}
            >
              <strong>{entry.label}</strong>
              <span className="muted">{entry.hint}</span>
            </button>
          ))}
        </nav>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop target of palette drags; the palette's buttons are the keyboard way to add nodes */}
        <div
          className="canvas"
          data-testid="canvas"
          onDrop={onDrop}
          onDragOver={(event) => event.preventDefault()}
        >
          <ReactFlow
            nodes={displayNodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onNodeDragStart={() => history.record(snapshot())}
            onBeforeDelete={async () => {
              history.record(snapshot());
              return true;
            }}
            onConnect={onConnect}
            onNodeClick={(_, node) => setSelectedId(node.id)}
            onPaneClick={() => setSelectedId(null)}
            fitView
            fitViewOptions={FIT}
            minZoom={MIN_ZOOM}
            deleteKeyCode={["Backspace", "Delete"]}
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls />
            <MiniMap pannable zoomable />
          </ReactFlow>
        </div>
        <div className="side" hidden={!panels.side}>
          {selected && runStates[selected.id] ? (
            <NodeRunInspector nodeId={selected.id} state={runStates[selected.id] as NodeRunView} />
          ) : null}
          {selected ? (
            <NodeConfig
              key={selected.id}
              node={{
                ...selected,
                data: {
                  ...selected.data,
                  issues: issues.filter((i) => i.node_id === selected.id).map((i) => i.message),
                },
              }}
              variables={variables}
              tools={tools.data?.data ?? []}
              runError={runStates[selected.id]?.error}
              onChange={(config, extra) =>
                change({
                  nodes: nodes.map((node) =>
                    node.id === selected.id
                      ? { ...node, data: { ...node.data, config, extra: extra ?? node.data.extra } }
                      : node,
                  ),
                  edges,
                })
              }
              onDelete={() => {
                change({
                  nodes: nodes.filter((node) => node.id !== selected.id),
                  edges: edges.filter((edge) => edge.source !== selected.id && edge.target !== selected.id),
                });
                setSelectedId(null);
              }}
            />
          ) : null}
          <RunPanel
            workflowId={workflow.id}
            start={nodes.find((node) => node.data.apiType === "start")}
            isDirty={isDirty}
            onNodeState={setRunStates}
            onSelectNode={setSelectedId}
            initialRunId={initialRunId}
          />
        </div>
      </div>
    </div>
  );
}

/** A comparable form of a graph: stored graphs come back with keys reordered, so both go through the editor's shape. */
function fingerprint(name: string, graph: ApiGraph): string {
  const editor = toEditor(graph);
  return JSON.stringify({ name, graph: toApi(editor.nodes, editor.edges) }, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
  );
}
