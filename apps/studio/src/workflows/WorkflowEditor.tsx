import {
  Background,
  type Connection,
  Controls,
  type Edge,
  MiniMap,
  type NodeMouseHandler,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { type DragEvent, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "../api/client.ts";
import { PublishPanel } from "../apps/PublishPanel.tsx";
import { navigate } from "../router.ts";
import { Button, ErrorBox, Loading, QueryError } from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { autoLayout, type EditorNode, type NodeType, toApi, toEditor, variablesFor } from "./graph.ts";
import {
  clearSelection,
  configureNode,
  connect,
  displayNodes,
  fingerprint,
  issuesByNode,
  newNode,
  removeNode,
  saveIssues,
  selectAll,
  showsMinimap,
} from "./graph-edits.ts";
import { NodeConfig } from "./NodeConfig.tsx";
import { droppedNodeType, NodePalette } from "./NodePalette.tsx";
import { NodeRunInspector } from "./NodeRunInspector.tsx";
import { useExposeWorkflow, useSaveWorkflow, useTools, useWorkflow, type Workflow } from "./queries.ts";
import { type NodeRunView, RunPanel } from "./RunPanel.tsx";
import { SchedulePanel } from "./SchedulePanel.tsx";
import { StepNode } from "./StepNode.tsx";
import { useClipboard } from "./useClipboard.ts";
import { useEditorGraph } from "./useEditorGraph.ts";
import { useEditorShortcuts } from "./useEditorShortcuts.ts";
import { useLiveValidation } from "./useLiveValidation.ts";
import { useStoredPanels } from "./useStoredPanels.ts";
import { useUnsavedGuard } from "./useUnsavedGuard.ts";

// React Flow compares these props by identity on every render: module constants, never literals.
const nodeTypes = { step: StepNode };
/** Room around the graph when fitting, so edge nodes are never cut by the canvas border or controls. */
const FIT = { padding: 0.15, minZoom: 0.02, maxZoom: 1.25 };
/** Far enough out to see a thousand-node workflow whole. */
const MIN_ZOOM = 0.02;
const DELETE_KEYS = ["Backspace", "Delete"];
const PRO_OPTIONS = { hideAttribution: true };
/** The minimap, drawn when `showsMinimap` says so. */
function Overview({ nodeCount }: { nodeCount: number }) {
  // A boolean, so this renders again only when the zoom crosses the line, not on every frame.
  // Until the first fit the zoom is React Flow's default of 1, not the graph's: drawing a large
  // graph's minimap then would build and drop a thousand minimap nodes while the editor opens.
  const isShown = useStore((state) => !state.fitViewQueued && showsMinimap(nodeCount, state.transform[2]));
  return isShown ? <MiniMap pannable zoomable /> : null;
}

/** The Publish panel, from the workflow as last saved (a save updates the cached workflow). */
function WorkflowPublish({ id, isDirty }: { id: string; isDirty: boolean }) {
  const saved = useWorkflow(id);
  if (!saved.data) return null;
  return <PublishPanel target={{ kind: "workflow", id }} state={saved.data} isDirty={isDirty} />;
}

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

function Editor({ workflow }: { workflow: Workflow }) {
  const [initial] = useState(() => toEditor(workflow.graph));
  const editor = useEditorGraph(initial);
  const { nodes, edges, change, select } = editor;
  const [name, setName] = useState(workflow.name);
  const [savedJson, setSavedJson] = useState(() => fingerprint(workflow.name, workflow.graph));
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [runStates, setRunStates] = useState<Record<string, NodeRunView>>({});
  // The runs page opens a past run here with ?run=<id>.
  const [initialRunId] = useState(() => new URLSearchParams(window.location.search).get("run"));
  const clipboard = useClipboard();
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
  const confirmLeave = useUnsavedGuard(isDirty);
  const [issues, setIssues] = useLiveValidation(graph);
  const nodeIssues = useMemo(() => issuesByNode(issues), [issues]);
  const toolOutputs = useMemo(
    () => Object.fromEntries((tools.data?.data ?? []).map((tool) => [tool.name, tool.outputs])),
    [tools.data],
  );

  const [toDisplay] = useState(() => displayNodes());
  const shownNodes = useMemo(
    () => toDisplay(nodes, nodeIssues, (id) => runStates[id]?.status),
    [toDisplay, nodes, nodeIssues, runStates],
  );

  const addNode = useCallback(
    (type: NodeType, position?: { x: number; y: number }) => {
      const at =
        position ?? flow.screenToFlowPosition({ x: window.innerWidth / 2, y: window.innerHeight / 2 });
      let added = "";
      change((graph) => {
        const node = newNode(type, at, graph.nodes);
        added = node.id;
        return { nodes: [...graph.nodes, node], edges: graph.edges };
      });
      setSelectedId(added);
    },
    [flow, change],
  );

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const type = droppedNodeType(event);
    if (type) addNode(type, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
  };

  const onConnect = useCallback(
    (connection: Connection) => change((graph) => ({ ...graph, edges: connect(graph.edges, connection) })),
    [change],
  );
  const onBeforeDelete = useCallback(async () => {
    editor.record();
    return true;
  }, [editor.record]);
  const onNodeClick = useCallback<NodeMouseHandler<EditorNode>>((_, node) => setSelectedId(node.id), []);
  const onPaneClick = useCallback(() => setSelectedId(null), []);

  useEditorShortcuts({
    "select-all": () => select(selectAll),
    "clear-selection": () => {
      select(clearSelection);
      setSelectedId(null);
    },
    undo: editor.undo,
    redo: editor.redo,
    copy: () => clipboard.copy(nodes),
    paste: () => {
      const pasted = clipboard.paste(nodes);
      if (pasted) change((graph) => ({ ...graph, nodes: pasted }));
    },
  });

  const saveNow = () => {
    save.mutate(
      { name, graph: toApi(nodes, edges) },
      {
        onSuccess: (saved) => setSavedJson(fingerprint(saved.name, saved.graph)),
        onError: (error) => {
          if (error instanceof ApiError) setIssues(saveIssues(error));
        },
      },
    );
  };

  const selected = nodes.find((node) => node.id === selectedId);
  const variables = selected ? variablesFor(selected.id, nodes, edges, toolOutputs) : [];
  const graphIssues = issues.filter((issue) => !issue.node_id);

  return (
    <div className="editor" role="application" aria-label="Workflow editor">
      <header className="editor-toolbar">
        <a
          href="/workflows"
          onClick={(e) => {
            e.preventDefault();
            if (confirmLeave()) navigate("/workflows");
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
        <Button variant="secondary" onClick={editor.undo} disabled={!editor.canUndo}>
          Undo
        </Button>
        <Button variant="secondary" onClick={editor.redo} disabled={!editor.canRedo}>
          Redo
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            change((graph) => ({ ...graph, nodes: autoLayout(graph.nodes, graph.edges) }));
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
        <Guarded>
          <Button onClick={saveNow} isBusy={save.isPending} disabled={!isDirty}>
            Save
          </Button>
        </Guarded>
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
        <NodePalette isHidden={!panels.palette} onAdd={addNode} />
        {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop target of palette drags; the palette's buttons are the keyboard way to add nodes */}
        <div
          className="canvas"
          data-testid="canvas"
          onDrop={onDrop}
          onDragOver={(event) => event.preventDefault()}
        >
          <ReactFlow
            nodes={shownNodes}
            edges={edges}
            nodeTypes={nodeTypes}
            onNodesChange={editor.onNodesChange}
            onEdgesChange={editor.onEdgesChange}
            onNodeDragStart={editor.record}
            onBeforeDelete={onBeforeDelete}
            onConnect={onConnect}
            onNodeClick={onNodeClick}
            onPaneClick={onPaneClick}
            fitView
            fitViewOptions={FIT}
            minZoom={MIN_ZOOM}
            deleteKeyCode={DELETE_KEYS}
            proOptions={PRO_OPTIONS}
          >
            <Background />
            <Controls />
            <Overview nodeCount={nodes.length} />
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
                data: { ...selected.data, issues: nodeIssues.get(selected.id) ?? [] },
              }}
              variables={variables}
              tools={tools.data?.data ?? []}
              runError={runStates[selected.id]?.error}
              onChange={(config, extra) =>
                change((graph) => ({
                  ...graph,
                  nodes: configureNode(graph.nodes, selected.id, config, extra),
                }))
              }
              onDelete={() => {
                change((graph) => removeNode(graph, selected.id));
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
          <WorkflowPublish id={workflow.id} isDirty={isDirty} />
          <SchedulePanel workflowId={workflow.id} />
        </div>
      </div>
    </div>
  );
}
