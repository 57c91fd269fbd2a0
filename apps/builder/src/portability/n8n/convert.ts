// An n8n workflow export as a graph of this builder's seven node types. n8n passes lists of items
// from node to node and its expressions read the current one (`$json`); here nodes have named
// outputs that later nodes reference (`{{node.field}}`). The conversion gives each n8n node the
// outputs that stand for its item and rewrites the expressions that read items into references.
// docs/history-and-import.md ("From n8n") has the table of what becomes what.
import type { ErrorDetail } from "@app/http";
import type { WorkflowGraphInput } from "@app/workflow";
import { findProvider } from "../../providers/catalogue.ts";
import type { ExportedReference, N8nNode, N8nWorkflow } from "../contract.ts";
import { ImportErrors } from "../errors.ts";
import { namedNodes, placeholderCode, setNodeCode, wrapJavaScript, wrapPython } from "./code.ts";
import {
  type ItemAccess,
  type ItemPath,
  isExpression,
  type Translator,
  translateDeep,
  translateJson,
  translateText,
  type ValueHint,
} from "./expressions.ts";
import {
  classify,
  IF_OPERATORS,
  ifComparisons,
  isTriggerType,
  MODEL_PROVIDERS,
  type NodeKind,
  type TriggerMode,
} from "./nodes.ts";

/** What became of one n8n node (the import report's `n8n.nodes`). */
export interface N8nNodeReport {
  name: string;
  type: string;
  outcome: "mapped" | "placeholder" | "skipped" | "ignored";
  node_id: string | null;
  node_type: string | null;
  reason?: string;
  warnings?: string[];
}

export interface N8nConversion {
  name: string;
  graph: WorkflowGraphInput;
  /** The n8n credentials its HTTP nodes used, as references the import resolves by name. */
  references: ExportedReference[];
  nodes: N8nNodeReport[];
  warnings: string[];
}

interface MainEdge {
  from: string;
  output: number;
  to: string;
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const TEMPLATE_KEY = /^[A-Za-z0-9_-]+$/;
/** Stands for the Start node's whole item until its inputs are all known. */
const START_ITEM = "\u0000n8n-start-item\u0000";

/** How later nodes read an n8n node's item here. */
type Shape =
  | { kind: "start"; mode: TriggerMode }
  | { kind: "json"; id: string }
  | { kind: "http"; id: string; full: boolean; textField: string | undefined }
  | { kind: "llm"; id: string; json: boolean }
  | { kind: "end" };

interface Entry {
  index: number;
  node: N8nNode;
  kind: NodeKind;
  /** Our node id, once the node is part of the graph. */
  id?: string;
  shape?: Shape;
  outcome?: N8nNodeReport["outcome"];
  reason?: string;
  warnings: string[];
  /** For an IF whose only comparison is negated: its true and false branches change places. */
  swapsBranches?: boolean;
  /** The node's model (a chain's or an agent's chat model sub-node). */
  model?: Entry;
  subNodes: { type: string; entry: Entry }[];
  /** The names of the Set node's top-level fields, when it sets only those. */
  fields?: string[];
}

/**
 * Converts an n8n workflow. Nodes with no counterpart refuse the whole import (422 listing each),
 * unless `partial`: then each becomes a labelled placeholder Code node where the graph stays valid
 * with one, and is left out and listed otherwise.
 *
 * @example const converted = convertN8n(document, { partial: false });
 */
export function convertN8n(workflow: N8nWorkflow, options: { partial: boolean }): N8nConversion {
  return new Conversion(workflow, options.partial).run();
}

class Conversion {
  private readonly entries = new Map<string, Entry>();
  private edges: MainEdge[] = [];
  private readonly warnings: string[] = [];
  private readonly references = new Map<string, ExportedReference>();
  private readonly inputs = new Map<string, { type: string; required: boolean; sampled: boolean }>();
  private readonly usedIds = new Set<string>();
  private trigger: Entry | undefined;
  private ancestorCache = new Map<string, Set<string>>();
  /** The node each left-out pass-through node took its item from. */
  private readonly passedFrom = new Map<string, string | undefined>();

  constructor(
    private readonly workflow: N8nWorkflow,
    private readonly partial: boolean,
  ) {}

  run(): N8nConversion {
    this.readNodes();
    this.readConnections();
    this.dropPassThroughs();
    this.chooseTrigger();
    this.markUnreachable();
    this.checkSupported();
    this.breakLoops();
    this.assignIds();
    this.declareTriggerInputs();
    const built = this.buildNodes();
    const graph = this.assemble(built);
    return {
      name: (this.workflow.name ?? "").trim().slice(0, 200) || "Imported from n8n",
      graph,
      references: [...this.references.values()],
      nodes: [...this.entries.values()].map((entry) => this.report(entry)),
      warnings: this.warnings,
    };
  }

  // --- reading ---------------------------------------------------------------------------------

  private readNodes(): void {
    for (const [index, node] of this.workflow.nodes.entries()) {
      if (this.entries.has(node.name)) {
        this.warnings.push(`Two nodes are named "${node.name}": the second one was left out.`);
        continue;
      }
      const kind =
        node.disabled === true && isTriggerType(node.type)
          ? ({ kind: "ignored", reason: "a disabled trigger" } as const)
          : classify(node);
      this.entries.set(node.name, { index, node, kind, warnings: [], subNodes: [] });
    }
  }

  private readConnections(): void {
    for (const [source, value] of Object.entries(this.workflow.connections)) {
      if (!isRecord(value)) continue;
      const from = this.entries.get(source);
      for (const [type, outputs] of Object.entries(value)) {
        if (!Array.isArray(outputs)) continue;
        outputs.forEach((targets, output) => {
          if (!Array.isArray(targets)) return;
          for (const target of targets) {
            if (!isRecord(target) || typeof target.node !== "string") continue;
            const to = this.entries.get(target.node);
            if (!from || !to) {
              this.warnings.push(
                `A connection from "${source}" to "${target.node}" names a node that is not there.`,
              );
              continue;
            }
            if (type === "main") this.edges.push({ from: source, output, to: target.node });
            else to.subNodes.push({ type, entry: from });
          }
        });
      }
    }
    for (const entry of this.entries.values()) {
      if (entry.kind.kind !== "llm") continue;
      const flavour = entry.kind.flavour;
      if (flavour === "chain" || flavour === "agent") {
        const model = entry.subNodes.find((sub) => sub.type === "ai_languageModel")?.entry;
        if (model?.kind.kind !== "model") {
          entry.kind = { kind: "unmappable", reason: "no chat model is connected to it", isTrigger: false };
        } else {
          entry.model = model;
        }
        const tools = entry.subNodes.filter((sub) => sub.type === "ai_tool");
        if (tools.length > 0) {
          entry.kind = {
            kind: "unmappable",
            reason:
              "an AI Agent with tools: make it an agent here (/api/agents) and call it from a Tool node (run_agent)",
            isTrigger: false,
          };
        }
      }
    }
    for (const entry of this.entries.values()) {
      for (const sub of entry.subNodes) {
        const child = sub.entry;
        if (child.kind.kind === "model") {
          if (entry.kind.kind === "llm") {
            child.outcome = "mapped";
            child.reason = `the model of "${entry.node.name}"`;
          } else {
            child.outcome = "skipped";
            child.reason = `the model of "${entry.node.name}", which was not imported`;
          }
        } else if (child.kind.kind === "unmappable") {
          child.reason = `${child.kind.reason} (${sub.type.replace("ai_", "")} of "${entry.node.name}")`;
        }
      }
    }
    for (const entry of this.entries.values()) {
      if (entry.kind.kind === "model" && entry.outcome === undefined) {
        entry.outcome = "ignored";
        entry.reason = "a chat model connected to no AI node";
      }
    }
  }

  /** Nodes n8n passes items through (no-ops, disabled nodes) are left out, their edges joined. */
  private dropPassThroughs(): void {
    for (const entry of this.entries.values()) {
      if (entry.kind.kind !== "through") continue;
      const name = entry.node.name;
      const incoming = this.edges.filter((edge) => edge.to === name);
      const outgoing = this.edges.filter((edge) => edge.from === name && edge.output === 0);
      this.passedFrom.set(name, incoming[0]?.from);
      this.edges = this.edges.filter((edge) => edge.from !== name && edge.to !== name);
      for (const into of incoming) {
        for (const out of outgoing) this.addEdge({ from: into.from, output: into.output, to: out.to });
      }
      entry.outcome = "ignored";
      entry.reason = entry.kind.reason;
    }
    for (const entry of this.entries.values()) {
      if (entry.kind.kind === "ignored") {
        entry.outcome = "ignored";
        entry.reason = entry.kind.reason;
        this.edges = this.edges.filter(
          (edge) => edge.from !== entry.node.name && edge.to !== entry.node.name,
        );
      }
    }
  }

  private addEdge(edge: MainEdge): void {
    const exists = this.edges.some(
      (other) => other.from === edge.from && other.output === edge.output && other.to === edge.to,
    );
    if (!exists && edge.from !== edge.to) this.edges.push(edge);
  }

  private chooseTrigger(): void {
    const rank = (entry: Entry): number => {
      const { kind } = entry;
      if (kind.kind === "trigger") {
        if (kind.mode === "webhook") return 0;
        if (kind.mode === "chat") return 1;
        return kind.note ? 3 : 2;
      }
      if (kind.kind === "unmappable" && kind.isTrigger) return 4;
      return Number.POSITIVE_INFINITY;
    };
    const triggers = [...this.entries.values()]
      .filter((entry) => entry.outcome === undefined && Number.isFinite(rank(entry)))
      .sort((a, b) => rank(a) - rank(b) || a.index - b.index);
    const chosen = triggers[0];
    if (!chosen) {
      throw ImportErrors.N8N_IMPORT_FAILED({
        message:
          "The n8n workflow has no trigger (Manual Trigger, Webhook, Execute Workflow Trigger…) to start from.",
        param: "nodes",
      });
    }
    this.trigger = chosen;
    if (chosen.kind.kind === "unmappable") {
      const reason = chosen.kind.reason;
      chosen.kind = { kind: "trigger", mode: "fields" };
      if (this.partial) {
        chosen.outcome = "placeholder";
        chosen.reason = `${reason}: replaced by a Start node with no inputs; nothing here fires it yet`;
      } else {
        chosen.outcome = "skipped";
        chosen.reason = reason;
      }
    } else if (chosen.kind.kind === "trigger" && chosen.kind.note) {
      chosen.warnings.push(chosen.kind.note);
    }
    for (const other of triggers.slice(1)) {
      for (const edge of this.edges.filter((candidate) => candidate.from === other.node.name)) {
        this.addEdge({ from: chosen.node.name, output: 0, to: edge.to });
      }
      this.edges = this.edges.filter((edge) => edge.from !== other.node.name && edge.to !== other.node.name);
      other.outcome = "ignored";
      other.reason = `another trigger: a workflow here has one start, and what this one started now follows "${chosen.node.name}"`;
    }
  }

  private reachable(): Set<string> {
    const start = this.trigger?.node.name;
    const seen = new Set<string>(start ? [start] : []);
    const queue = start ? [start] : [];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const edge of this.edges) {
        if (edge.from === next && !seen.has(edge.to)) {
          seen.add(edge.to);
          queue.push(edge.to);
        }
      }
    }
    return seen;
  }

  /** Nodes no trigger reaches never run in n8n either: left out, and said so. */
  private markUnreachable(): void {
    const reachable = this.reachable();
    for (const entry of this.entries.values()) {
      if (entry.outcome !== undefined || reachable.has(entry.node.name) || entry.kind.kind === "model")
        continue;
      if (this.isSubNode(entry)) continue;
      entry.outcome = "ignored";
      entry.reason = "not connected to the trigger: n8n never runs it either";
      this.edges = this.edges.filter((edge) => edge.from !== entry.node.name && edge.to !== entry.node.name);
    }
    for (const parent of this.entries.values()) {
      if (parent.outcome !== "ignored") continue;
      for (const sub of parent.subNodes) {
        if (sub.entry.outcome !== undefined && sub.entry.outcome !== "mapped") continue;
        sub.entry.outcome = "ignored";
        sub.entry.reason = `part of "${parent.node.name}", which is not imported`;
      }
    }
  }

  private isSubNode(entry: Entry): boolean {
    return [...this.entries.values()].some((parent) => parent.subNodes.some((sub) => sub.entry === entry));
  }

  /** Without `partial`, any node with no counterpart refuses the import, each named in `details`. */
  private checkSupported(): void {
    const unsupported = [...this.entries.values()].filter(
      (entry) =>
        (entry.outcome === undefined || (entry.outcome === "skipped" && entry === this.trigger)) &&
        (entry.kind.kind === "unmappable" || (entry === this.trigger && entry.outcome === "skipped")),
    );
    if (unsupported.length === 0) return;
    if (!this.partial) {
      const details: ErrorDetail[] = unsupported.map((entry) => ({
        path: `nodes[${entry.index}]`,
        message: `"${entry.node.name}" (${entry.node.type}): ${entry.reason ?? (entry.kind.kind === "unmappable" ? entry.kind.reason : "no counterpart here")}`,
      }));
      throw ImportErrors.N8N_UNSUPPORTED_NODES({
        message: `${unsupported.length} of the n8n workflow's nodes have no counterpart here: ${unsupported
          .map((entry) => `"${entry.node.name}" (${entry.node.type})`)
          .join(", ")}. Nothing was imported; send ?partial=true to import the rest.`,
        param: details[0]?.path ?? "nodes",
        details,
      });
    }
    for (const entry of unsupported) {
      if (entry.kind.kind !== "unmappable") continue;
      const reason = entry.reason ?? entry.kind.reason;
      if (this.isSubNode(entry)) {
        entry.outcome = "skipped";
        entry.reason = reason;
      } else {
        entry.outcome = "placeholder";
        entry.reason = reason;
      }
    }
  }

  /** Runs here do not loop: without `partial` a loop refuses the import; with it, loops are cut. */
  private breakLoops(): void {
    const loops = this.backEdges();
    if (loops.length === 0) return;
    if (!this.partial) {
      throw ImportErrors.N8N_IMPORT_FAILED({
        message: `The n8n workflow loops (from "${loops[0]?.from}" back to "${loops[0]?.to}"); workflows here run each node once. Send ?partial=true to import it without its loops.`,
        param: "connections",
        details: loops.map((edge) => ({
          path: `connections.${edge.from}`,
          message: `loops back to "${edge.to}"`,
        })),
      });
    }
    for (const edge of this.backEdges()) {
      this.edges = this.edges.filter((other) => other !== edge);
      this.warnings.push(
        `The loop from "${edge.from}" back to "${edge.to}" was cut: workflows here do not loop.`,
      );
    }
    const reachable = this.reachable();
    for (const entry of this.entries.values()) {
      if (entry.outcome !== undefined && entry.outcome !== "placeholder") continue;
      if (reachable.has(entry.node.name) || this.isSubNode(entry) || entry.kind.kind === "model") continue;
      entry.outcome = "skipped";
      entry.reason = "reachable only through a node that was left out";
      this.edges = this.edges.filter((edge) => edge.from !== entry.node.name && edge.to !== entry.node.name);
    }
  }

  /** The edges that close a loop (back edges of a depth-first walk from the trigger). */
  private backEdges(): MainEdge[] {
    const state = new Map<string, "open" | "done">();
    const found: MainEdge[] = [];
    const visit = (name: string) => {
      state.set(name, "open");
      for (const edge of this.edges.filter((candidate) => candidate.from === name)) {
        const seen = state.get(edge.to);
        if (seen === "open") found.push(edge);
        else if (seen === undefined) visit(edge.to);
      }
      state.set(name, "done");
    };
    if (this.trigger) visit(this.trigger.node.name);
    return found;
  }

  private inGraph(entry: Entry): boolean {
    return (
      (entry.outcome === undefined || entry.outcome === "placeholder" || entry === this.trigger) &&
      !this.isSubNode(entry) &&
      entry.kind.kind !== "model"
    );
  }

  private assignIds(): void {
    this.usedIds.add("start");
    for (const entry of this.entries.values()) {
      if (!this.inGraph(entry)) continue;
      entry.id = entry === this.trigger ? "start" : this.newId(entry.node.name);
      entry.outcome ??= "mapped";
      entry.shape = this.shapeOf(entry);
    }
  }

  private newId(name: string): string {
    const base =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, "")
        .slice(0, 56) || "node";
    let id = base;
    for (let n = 2; this.usedIds.has(id); n++) id = `${base}_${n}`;
    this.usedIds.add(id);
    return id;
  }

  private shapeOf(entry: Entry): Shape | undefined {
    const id = entry.id ?? "";
    if (entry === this.trigger) {
      return { kind: "start", mode: entry.kind.kind === "trigger" ? entry.kind.mode : "fields" };
    }
    if (entry.outcome === "placeholder") return { kind: "json", id };
    switch (entry.kind.kind) {
      case "http": {
        const response = (entry.node.parameters?.options as Json | undefined)?.response as Json | undefined;
        const settings = (response?.response ?? {}) as {
          fullResponse?: boolean;
          responseFormat?: string;
          outputPropertyName?: string;
        };
        return {
          kind: "http",
          id,
          full: settings.fullResponse === true,
          textField: settings.responseFormat === "text" ? (settings.outputPropertyName ?? "data") : undefined,
        };
      }
      case "code":
      case "set":
        return { kind: "json", id };
      case "llm":
        return { kind: "llm", id, json: entry.node.parameters?.jsonOutput === true };
      case "respond":
        return { kind: "end" };
      default:
        return undefined;
    }
  }

  // --- reading items -----------------------------------------------------------------------------

  /** The node whose item flows into `name` (its first incoming edge's source). */
  private inputOf(name: string): string | undefined {
    return this.edges.find((edge) => edge.to === name)?.from;
  }

  private ancestors(name: string): Set<string> {
    const cached = this.ancestorCache.get(name);
    if (cached) return cached;
    const seen = new Set<string>();
    const queue = [name];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      for (const edge of this.edges) {
        if (edge.to === next && !seen.has(edge.from)) {
          seen.add(edge.from);
          queue.push(edge.from);
        }
      }
    }
    this.ancestorCache.set(name, seen);
    return seen;
  }

  /** The node a left-out pass-through node (a no-op, a disabled node) took its item from, or the node itself. */
  private passedThrough(name: string): string | undefined {
    let current: string | undefined = name;
    for (let hops = 0; current !== undefined && this.passedFrom.has(current) && hops < 1000; hops++) {
      current = this.passedFrom.get(current);
    }
    return current;
  }

  /** An IF passes its input item on: reading it reads what flowed into it. */
  private itemSource(name: string): Entry | undefined {
    const resolved = this.passedThrough(name);
    let entry = resolved === undefined ? undefined : this.entries.get(resolved);
    for (
      let hops = 0;
      entry && entry.kind.kind === "if" && entry.outcome !== "placeholder" && hops < 1000;
      hops++
    ) {
      const input = this.inputOf(entry.node.name);
      entry = input ? this.entries.get(input) : undefined;
    }
    return entry;
  }

  private translator(entry: Entry): Translator {
    return {
      warn: (message) => {
        if (!entry.warnings.includes(message)) entry.warnings.push(message);
      },
      reference: (access, hint) => this.reference(entry, access, hint),
    };
  }

  private reference(entry: Entry, access: ItemAccess, hint?: ValueHint): string | { problem: string } {
    const named = access.node === undefined ? undefined : this.passedThrough(access.node);
    if (access.node !== undefined) {
      if (!this.entries.has(access.node)) return { problem: `there is no node "${access.node}"` };
      if (named === undefined || !this.ancestors(entry.node.name).has(named)) {
        return { problem: `"${access.node}" is not upstream of it` };
      }
    }
    const name = named ?? this.inputOf(entry.node.name);
    if (name === undefined) return { problem: "nothing flows into it" };
    const source = this.itemSource(name);
    if (!source?.shape) return { problem: `"${name}" was not imported` };
    return this.pathReference(source.shape, access.path, hint);
  }

  private pathReference(shape: Shape, path: ItemPath, hint?: ValueHint): string | { problem: string } {
    switch (shape.kind) {
      case "start": {
        let field = path;
        if (shape.mode === "webhook") {
          const [part, ...rest] = path;
          if (part === "headers" || part === "params")
            return { problem: `a webhook's ${part} do not reach workflows here` };
          if (part !== "body" && part !== "query")
            return { problem: "a webhook's item has body, query and headers" };
          if (rest.length === 0) return { problem: `the whole ${part}: read its fields instead` };
          field = rest;
        }
        const [first, ...rest] = field;
        if (typeof first !== "string" || !IDENTIFIER.test(first)) {
          return { problem: "a Start input needs a name of letters, digits and _" };
        }
        this.registerInput(first, rest.length === 0 ? hint : undefined);
        return templatePath("start", [first, ...rest]);
      }
      case "json":
        return templatePath(shape.id, ["json", ...path]);
      case "http": {
        if (shape.full) {
          const [part, ...rest] = path;
          if (part === "body") return templatePath(shape.id, ["json", ...rest]);
          if (part === "statusCode" && rest.length === 0) return templatePath(shape.id, ["status"]);
          if (part === "headers") return templatePath(shape.id, ["headers", ...rest]);
          return { problem: "a full response has body, headers and statusCode" };
        }
        if (shape.textField !== undefined) {
          if (path.length === 1 && path[0] === shape.textField) return templatePath(shape.id, ["body"]);
          return { problem: `a text response is in ${shape.textField}` };
        }
        return templatePath(shape.id, ["json", ...path]);
      }
      case "llm": {
        const key = path.join(".");
        if (
          [
            "",
            "text",
            "output",
            "response",
            "content",
            "message.content",
            "choices.0.message.content",
          ].includes(key)
        ) {
          return templatePath(shape.id, [shape.json && key === "message.content" ? "json" : "text"]);
        }
        if (shape.json && path[0] === "message" && path[1] === "content") {
          return templatePath(shape.id, ["json", ...path.slice(2)]);
        }
        if (path[0] === "usage") return templatePath(shape.id, path);
        return { problem: "an LLM node's answer is its text" };
      }
      case "end":
        return { problem: "it responds to the webhook and has no data" };
    }
  }

  private registerInput(name: string, hint: ValueHint | undefined): void {
    const known = this.inputs.get(name);
    if (known) {
      if (!known.sampled && known.type === "string" && hint && hint !== "string") known.type = hint;
      return;
    }
    const sample = this.sample()?.[name];
    if (sample !== undefined) {
      this.inputs.set(name, { type: valueType(sample), required: false, sampled: true });
    } else {
      this.inputs.set(name, { type: hint ?? "string", required: false, sampled: false });
    }
  }

  /** The trigger's sample data from the export's pinned data, when n8n kept some. */
  private sample(): Json | undefined {
    const trigger = this.trigger;
    if (!trigger) return undefined;
    const pinned = (this.workflow.pinData as Json | undefined)?.[trigger.node.name];
    const first = Array.isArray(pinned) ? pinned[0] : undefined;
    const json = isRecord(first) && isRecord(first.json) ? first.json : isRecord(first) ? first : undefined;
    if (!json) return undefined;
    if (trigger.kind.kind === "trigger" && trigger.kind.mode === "webhook") {
      return isRecord(json.body) ? json.body : undefined;
    }
    return json;
  }

  /** An n8n node's whole item as a value here (templates inside). */
  private itemValue(name: string | undefined): unknown {
    const source = name === undefined ? undefined : this.itemSource(name);
    const shape = source?.shape;
    if (!shape) return {};
    switch (shape.kind) {
      case "start":
        return START_ITEM;
      case "json":
        return `{{${shape.id}.json}}`;
      case "http":
        if (shape.full) {
          return {
            body: `{{${shape.id}.json}}`,
            headers: `{{${shape.id}.headers}}`,
            statusCode: `{{${shape.id}.status}}`,
          };
        }
        return shape.textField ? { [shape.textField]: `{{${shape.id}.body}}` } : `{{${shape.id}.json}}`;
      case "llm":
        return {
          text: `{{${shape.id}.text}}`,
          output: `{{${shape.id}.text}}`,
          message: { role: "assistant", content: `{{${shape.id}.text}}` },
        };
      case "end":
        return {};
    }
  }

  // --- building ------------------------------------------------------------------------------------

  private buildNodes(): Map<Entry, Json> {
    const built = new Map<Entry, Json>();
    for (const entry of this.entries.values()) {
      if (!entry.id) continue;
      let node = this.build(entry);
      if (node instanceof Refusal) {
        if (!this.partial) {
          throw ImportErrors.N8N_UNSUPPORTED_NODES({
            message: `"${entry.node.name}" (${entry.node.type}) cannot be imported: ${node.reason}. Nothing was imported; send ?partial=true to import the rest.`,
            param: `nodes[${entry.index}]`,
            details: [
              {
                path: `nodes[${entry.index}]`,
                message: `"${entry.node.name}" (${entry.node.type}): ${node.reason}`,
              },
            ],
          });
        }
        entry.outcome = "placeholder";
        entry.reason = node.reason;
        node = this.placeholder(entry);
      }
      built.set(entry, node);
    }
    // The Start node's item, now that every read of it declared its inputs.
    const start = this.trigger;
    const mode = start?.shape?.kind === "start" ? start.shape.mode : "fields";
    const fields = Object.fromEntries([...this.inputs.keys()].map((name) => [name, `{{start.${name}}}`]));
    const item = mode === "webhook" ? { body: fields, query: {}, headers: {}, params: {} } : fields;
    for (const node of built.values()) replaceDeep(node, START_ITEM, item);
    if (start && built.has(start)) {
      const startNode = built.get(start) as Json;
      startNode.data = {
        ...(startNode.data as Json),
        inputs: [...this.inputs.entries()].map(([name, input]) => ({
          name,
          type: input.type,
          required: input.required,
        })),
      };
      const guessed = [...this.inputs.entries()].filter(([, input]) => !input.sampled).map(([name]) => name);
      if (guessed.length > 0 && start.kind.kind === "trigger" && start.kind.mode !== "chat") {
        start.warnings.push(
          `The Start inputs ${guessed.join(", ")} come from how the workflow reads them; n8n kept no sample of their types, so check them.`,
        );
      }
    }
    return built;
  }

  private build(entry: Entry): Json | Refusal {
    if (entry.outcome === "placeholder" && entry !== this.trigger) return this.placeholder(entry);
    const base = { id: entry.id, position: position(entry.node) };
    const title = entry.node.name.slice(0, 200);
    const params = entry.node.parameters ?? {};
    const translator = this.translator(entry);
    const kind = entry.kind;
    switch (kind.kind) {
      case "trigger":
        return this.buildStart(entry, base, title);
      case "http":
        return {
          ...base,
          ...errorPolicy(entry.node),
          type: "http",
          data: this.buildHttp(entry, params, translator, title),
        };
      case "code":
        return this.buildCode(entry, base, title, kind.language, kind.code);
      case "set":
        return this.buildSet(entry, base, title, params, translator);
      case "if":
        return this.buildIf(entry, base, title, params, translator);
      case "respond":
        return this.buildRespond(entry, base, title, params, translator);
      case "llm":
        return this.buildLlm(entry, base, title, params, translator);
      default:
        return this.placeholder(entry);
    }
  }

  /**
   * The Start inputs the trigger itself says it takes, before any read of its data adds more: a chat
   * message, an Execute Workflow Trigger's declared inputs or JSON example, the fields of the sample
   * n8n pinned for it.
   */
  private declareTriggerInputs(): void {
    const entry = this.trigger;
    if (!entry) return;
    const params = entry.node.parameters ?? {};
    if (entry.kind.kind === "trigger" && entry.kind.mode === "chat") {
      this.inputs.set("chatInput", { type: "string", required: true, sampled: true });
    }
    const declared = ((params.workflowInputs as Json | undefined)?.values ?? []) as unknown[];
    for (const input of declared) {
      if (!isRecord(input) || typeof input.name !== "string" || !IDENTIFIER.test(input.name)) continue;
      const type = ["string", "number", "boolean", "array", "object"].includes(String(input.type))
        ? String(input.type)
        : "string";
      this.inputs.set(input.name, { type, required: false, sampled: true });
    }
    if (params.inputSource === "jsonExample" && typeof params.jsonExample === "string") {
      try {
        const example = JSON.parse(params.jsonExample) as unknown;
        if (isRecord(example)) {
          for (const [name, value] of Object.entries(example)) {
            if (IDENTIFIER.test(name))
              this.inputs.set(name, { type: valueType(value), required: false, sampled: true });
          }
        }
      } catch {
        entry.warnings.push("its JSON example is not JSON: its inputs come from how the workflow reads them");
      }
    }
    for (const [name, value] of Object.entries(this.sample() ?? {})) {
      if (IDENTIFIER.test(name) && !this.inputs.has(name)) {
        this.inputs.set(name, { type: valueType(value), required: false, sampled: true });
      }
    }
  }

  private buildStart(entry: Entry, base: Json, title: string): Json {
    const params = entry.node.parameters ?? {};
    if (entry.node.type.endsWith(".webhook")) {
      const method = typeof params.httpMethod === "string" ? params.httpMethod : "GET";
      if (method !== "POST") {
        entry.warnings.push(
          `n8n's webhook took ${method} requests; the trigger URL here takes POST with a JSON body, whose fields are the inputs`,
        );
      }
    }
    return { ...base, type: "start", data: { title, inputs: [] } };
  }

  private buildHttp(entry: Entry, params: Json, t: Translator, title: string): Json {
    const version = entry.node.typeVersion ?? 1;
    const text = (value: unknown) =>
      translateText(typeof value === "string" ? value : String(value ?? ""), t);
    const methodValue = params.method ?? params.requestMethod ?? "GET";
    const method = isExpression(methodValue) ? text(methodValue) : String(methodValue).toUpperCase();
    const url = text(params.url ?? "");
    const data: Json = { title, method, url: url || "https://example.com" };
    if (!url) entry.warnings.push("it had no URL: set one");
    const pairs = (collection: unknown, key = "parameters"): Record<string, string> => {
      const list =
        isRecord(collection) && Array.isArray(collection[key]) ? (collection[key] as unknown[]) : [];
      const out: Record<string, string> = {};
      for (const pair of list) {
        if (!isRecord(pair) || typeof pair.name !== "string" || pair.name === "") continue;
        out[text(pair.name)] = text(pair.value);
      }
      return out;
    };
    const jsonRecord = (value: unknown, what: string): Record<string, string> => {
      const parsed = typeof value === "string" ? translateJson(value, t) : undefined;
      if (!isRecord(parsed)) {
        entry.warnings.push(`its ${what} JSON could not be read: set them again`);
        return {};
      }
      return Object.fromEntries(
        Object.entries(parsed).map(([key, item]) => [
          key,
          typeof item === "string" ? item : JSON.stringify(item),
        ]),
      );
    };
    let headers: Record<string, string> = {};
    let query: Record<string, string> = {};
    let body: unknown;
    if (version >= 3) {
      if (params.sendQuery === true) {
        query =
          params.specifyQuery === "json"
            ? jsonRecord(params.jsonQuery, "query")
            : pairs(params.queryParameters);
      }
      if (params.sendHeaders === true) {
        headers =
          params.specifyHeaders === "json"
            ? jsonRecord(params.jsonHeaders, "headers")
            : pairs(params.headerParameters);
      }
      if (params.sendBody === true) {
        const contentType = params.contentType ?? "json";
        if (contentType === "json") {
          if (params.specifyBody === "json") {
            const raw =
              typeof params.jsonBody === "string" ? params.jsonBody : JSON.stringify(params.jsonBody ?? {});
            body = translateJson(raw, t);
            if (body === undefined) {
              entry.warnings.push(
                "its JSON body is not JSON once its expressions are set aside: sent as text",
              );
              body = text(raw);
            }
          } else {
            body = pairs(params.bodyParameters);
          }
        } else if (contentType === "form-urlencoded") {
          headers["content-type"] ??= "application/x-www-form-urlencoded";
          body = params.specifyBody === "string" ? text(params.body) : pairs(params.bodyParameters);
        } else if (contentType === "raw") {
          if (typeof params.rawContentType === "string" && params.rawContentType) {
            headers["content-type"] ??= text(params.rawContentType);
          }
          body = text(params.body);
        }
      }
    } else {
      query = pairs(params.queryParametersUi, "parameter");
      headers = pairs(params.headerParametersUi, "parameter");
      if (params.jsonParameters === true) {
        if (typeof params.queryParametersJson === "string")
          query = jsonRecord(params.queryParametersJson, "query");
        if (typeof params.headerParametersJson === "string")
          headers = jsonRecord(params.headerParametersJson, "headers");
        if (typeof params.bodyParametersJson === "string") {
          body = translateJson(params.bodyParametersJson, t) ?? text(params.bodyParametersJson);
        }
      } else {
        const fields = pairs(params.bodyParametersUi, "parameter");
        if (Object.keys(fields).length > 0) body = fields;
      }
    }
    if (Object.keys(headers).length > 0) data.headers = headers;
    if (Object.keys(query).length > 0) data.query = query;
    if (body !== undefined) data.body = body;
    const auth = this.httpAuth(entry, params);
    if (auth) data.auth = auth;
    const timeout = (params.options as Json | undefined)?.timeout;
    if (typeof timeout === "number" && timeout >= 1) data.timeout_ms = Math.min(Math.round(timeout), 600_000);
    return data;
  }

  /** An HTTP Request's n8n credential as an auth referencing a credential here (found by name on import). */
  private httpAuth(entry: Entry, params: Json): Json | undefined {
    const method = params.authentication;
    if (method === undefined || method === "none") return undefined;
    const credentials = entry.node.credentials ?? {};
    const type = method === "genericCredentialType" ? params.genericAuthType : params.nodeCredentialType;
    const credential = typeof type === "string" ? credentials[type] : Object.values(credentials)[0];
    const credentialName =
      isRecord(credential) && typeof credential.name === "string"
        ? credential.name
        : String(type ?? "n8n credential");
    const credentialId =
      isRecord(credential) && credential.id !== undefined ? String(credential.id) : credentialName;
    const placeholder = `n8n_${credentialId.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
    this.references.set(placeholder, {
      kind: "credential",
      id: placeholder,
      name: credentialName,
      provider: "http",
    });
    const reference = { credential_id: placeholder };
    switch (type) {
      case "httpHeaderAuth":
        entry.warnings.push(
          `n8n keeps its header auth's header name in the credential "${credentialName}": check the header (Authorization assumed)`,
        );
        return { type: "api_key", header: "Authorization", ...reference };
      case "httpBearerAuth":
        return { type: "bearer", ...reference };
      case "httpBasicAuth":
        entry.warnings.push(`the user name of "${credentialName}" stays in n8n: fill it in`);
        return { type: "basic", username: "", ...reference };
      default:
        entry.warnings.push(
          `its credential "${credentialName}" (${String(type)}) is sent as a bearer token here: check that the API takes one`,
        );
        return { type: "bearer", ...reference };
    }
  }

  private buildCode(
    entry: Entry,
    base: Json,
    title: string,
    language: "javascript" | "python",
    code: string,
  ): Json | Refusal {
    const names = namedNodes(code, language);
    const nodes: Json = {};
    for (const name of names) {
      if (!this.entries.has(name))
        return new Refusal(`its code reads the node "${name}", which is not there`);
      const resolved = this.passedThrough(name);
      if (resolved === undefined || !this.ancestors(entry.node.name).has(resolved)) {
        return new Refusal(`its code reads the node "${name}", which is not upstream of it`);
      }
      nodes[name] = this.itemValue(resolved);
    }
    this.declareReadFields(entry, code);
    const input = this.inputOf(entry.node.name);
    const inputs: Json[] = [{ name: "json", value: this.itemValue(input) }];
    if (names.length > 0) inputs.push({ name: "n8n_nodes", value: nodes });
    return {
      ...base,
      ...errorPolicy(entry.node),
      type: "code",
      data: {
        title,
        language,
        code:
          language === "python" ? wrapPython(code, entry.node.name) : wrapJavaScript(code, entry.node.name),
        inputs,
        outputs: [
          { name: "json", type: "object" },
          { name: "items", type: "array" },
        ],
      },
    };
  }

  /** A Code node reading the trigger's data by field names declares those fields as Start inputs. */
  private declareReadFields(entry: Entry, code: string): void {
    const input = this.inputOf(entry.node.name);
    const source = input ? this.itemSource(input) : undefined;
    if (source !== this.trigger || source?.shape?.kind !== "start") return;
    const pattern =
      source.shape.mode === "webhook"
        ? /\bbody\s*\??\.\s*([A-Za-z_]\w*)|\bbody\s*\[\s*['"]([A-Za-z_]\w*)['"]\s*\]/g
        : /(?:\$json|_json|\.json)\s*\??\.\s*([A-Za-z_]\w*)|(?:\$json|_json|\.json|\["json"\]|\['json'\])\s*\[\s*['"]([A-Za-z_]\w*)['"]\s*\]/g;
    for (const found of code.matchAll(pattern)) {
      const name = found[1] ?? found[2];
      if (name && IDENTIFIER.test(name) && name !== "body") this.registerInput(name, undefined);
    }
  }

  private buildSet(entry: Entry, base: Json, title: string, params: Json, t: Translator): Json | Refusal {
    const version = entry.node.typeVersion ?? 1;
    const options = (params.options ?? {}) as Json;
    const fields: [string, unknown, string][] = [];
    let keep: boolean;
    if (version >= 3) {
      keep =
        version >= 3.3
          ? params.includeOtherFields === true && (params.include ?? "all") === "all"
          : (params.include ?? "all") === "all";
      if (params.mode === "raw") {
        const parsed = translateJson(String(params.jsonOutput ?? ""), t);
        if (!isRecord(parsed))
          return new Refusal("its JSON output is not a JSON object once its expressions are set aside");
        for (const [name, value] of Object.entries(parsed)) fields.push([name, value, ""]);
      } else {
        const list = (params.assignments as Json | undefined)?.assignments;
        for (const assignment of Array.isArray(list) ? list : []) {
          if (!isRecord(assignment) || typeof assignment.name !== "string") continue;
          const value =
            typeof assignment.value === "string" ? translateText(assignment.value, t) : assignment.value;
          fields.push([
            translateText(assignment.name, t),
            value ?? null,
            String(assignment.type ?? "string"),
          ]);
        }
      }
    } else {
      keep = params.keepOnlySet !== true;
      const values = (params.values ?? {}) as Json;
      for (const type of ["string", "number", "boolean"]) {
        const list = Array.isArray(values[type]) ? (values[type] as unknown[]) : [];
        for (const item of list) {
          if (!isRecord(item) || typeof item.name !== "string") continue;
          const value = typeof item.value === "string" ? translateText(item.value, t) : item.value;
          fields.push([translateText(item.name, t), value ?? null, type]);
        }
      }
    }
    const dotNotation = options.dotNotation !== false;
    const topLevel = fields.map(([name]) => (dotNotation ? (name.split(".")[0] ?? name) : name));
    if (!keep) entry.fields = [...new Set(topLevel)];
    const input = this.inputOf(entry.node.name);
    return {
      ...base,
      ...errorPolicy(entry.node),
      type: "code",
      data: {
        title,
        language: "javascript",
        code: setNodeCode(entry.node.name),
        inputs: [
          ...(keep ? [{ name: "json", value: this.itemValue(input) }] : []),
          { name: "fields", value: fields },
          { name: "keep_input", value: keep },
          { name: "dot_notation", value: dotNotation },
        ],
        outputs: [
          { name: "json", type: "object" },
          { name: "items", type: "array" },
        ],
      },
    };
  }

  private buildIf(entry: Entry, base: Json, title: string, params: Json, t: Translator): Json | Refusal {
    const { combinator, comparisons, caseSensitive } = ifComparisons(params, entry.node.typeVersion ?? 1);
    const conditions: Json[] = [];
    for (const comparison of comparisons) {
      const mapped = IF_OPERATORS[`${comparison.type}:${comparison.operation}`];
      if (!mapped)
        return new Refusal(
          `its comparison "${comparison.type} ${comparison.operation}" has no counterpart here`,
        );
      if (mapped.negate) entry.swapsBranches = true;
      const hint: ValueHint | undefined =
        comparison.type === "number" ? "number" : comparison.type === "boolean" ? "boolean" : undefined;
      const operand = (value: unknown): unknown => {
        if (typeof value === "string") return translateText(value, t, hint);
        if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
        if (value === undefined) return undefined;
        return JSON.stringify(value);
      };
      const unary = mapped.operator === "empty" || mapped.operator === "not_empty";
      const right =
        mapped.right !== undefined ? mapped.right : unary ? undefined : operand(comparison.right ?? "");
      conditions.push({
        left: operand(comparison.left),
        operator: mapped.operator,
        ...(right === undefined ? {} : { right }),
      });
    }
    if (!caseSensitive && comparisons.some((comparison) => comparison.type === "string")) {
      entry.warnings.push("n8n compared text ignoring case; comparisons here are case-sensitive");
    }
    if (comparisons.some((comparison) => comparison.type === "dateTime")) {
      entry.warnings.push("dates compare here as text: they order correctly only as ISO 8601");
    }
    return {
      ...base,
      type: "condition",
      data: { title, cases: [{ id: "true", logic: combinator, conditions }] },
    };
  }

  private buildRespond(entry: Entry, base: Json, title: string, params: Json, t: Translator): Json {
    const respondWith = params.respondWith ?? "firstIncomingItem";
    const input = this.inputOf(entry.node.name);
    let outputs: { name: string; value: string }[];
    if (respondWith === "noData") {
      outputs = [];
    } else if (respondWith === "text") {
      outputs = [{ name: "text", value: translateText(String(params.responseBody ?? ""), t) }];
    } else if (respondWith === "json") {
      const body = params.responseBody;
      const parsed = typeof body === "string" ? translateJson(body, t) : translateDeep(body, t);
      outputs = valueOutputs(parsed, entry);
    } else {
      if (respondWith !== "firstIncomingItem") {
        entry.warnings.push(
          `it responded with ${String(respondWith)}; here the run's outputs are its first item`,
        );
      }
      outputs = this.itemOutputs(input);
    }
    const options = (params.options ?? {}) as Json;
    if (options.responseCode !== undefined || options.responseHeaders !== undefined) {
      entry.warnings.push(
        "the trigger URL answers 200 with the run's outputs: its status code and headers are not set",
      );
    }
    return { ...base, type: "end", data: { title, outputs } };
  }

  /** End outputs for an n8n node's item: its known fields one by one, or the item as `result`. */
  private itemOutputs(name: string | undefined): { name: string; value: string }[] {
    const source = name === undefined ? undefined : this.itemSource(name);
    const shape = source?.shape;
    if (!source || !shape) return [];
    if (shape.kind === "llm") return [{ name: "text", value: `{{${shape.id}.text}}` }];
    if (shape.kind === "start") {
      return [...this.inputs.keys()].map((field) => ({ name: field, value: `{{start.${field}}}` }));
    }
    if (shape.kind === "json" && source.fields && source.fields.every((field) => IDENTIFIER.test(field))) {
      return source.fields.map((field) => ({ name: field, value: `{{${shape.id}.json.${field}}}` }));
    }
    const value = this.itemValue(name);
    return [{ name: "result", value: typeof value === "string" ? value : JSON.stringify(value) }];
  }

  private buildLlm(entry: Entry, base: Json, title: string, params: Json, t: Translator): Json | Refusal {
    const kind = entry.kind.kind === "llm" ? entry.kind.flavour : "openai";
    let provider = "openai";
    let model: string | undefined;
    let options = (params.options ?? {}) as Json;
    const system: string[] = [];
    const prompt: string[] = [];
    const message = (role: unknown, content: unknown) => {
      const text = translateText(String(content ?? ""), t);
      if (role === "system") system.push(text);
      else if (role === "assistant" || role === "ai") {
        entry.warnings.push("an assistant message of its conversation was folded into the prompt");
        prompt.push(`Assistant: ${text}`);
      } else prompt.push(text);
    };
    if (kind === "openai") {
      model = resourceValue(params.modelId);
      const messages =
        (params.messages as Json | undefined)?.values ?? (params.responses as Json | undefined)?.values;
      for (const item of Array.isArray(messages) ? messages : [])
        if (isRecord(item)) message(item.role ?? "user", item.content);
    } else if (kind === "openai_legacy") {
      model = resourceValue(params.model ?? params.chatModel);
      const promptParam = params.prompt;
      if (isRecord(promptParam) && Array.isArray(promptParam.messages)) {
        for (const item of promptParam.messages)
          if (isRecord(item)) message(item.role ?? "user", item.content);
      } else if (typeof promptParam === "string") message("user", promptParam);
    } else {
      const sub = entry.model;
      provider = (sub && MODEL_PROVIDERS[sub.node.type]) ?? "openai";
      const subParams = sub?.node.parameters ?? {};
      model = resourceValue(subParams.model ?? subParams.modelName)?.replace(/^models\//, "");
      options = (subParams.options ?? {}) as Json;
      const text =
        params.promptType === "define" || params.text !== undefined
          ? (params.text ?? params.prompt)
          : "={{ $json.chatInput }}";
      message("user", text ?? "={{ $json.chatInput }}");
      if (kind === "agent") {
        const systemMessage = (params.options as Json | undefined)?.systemMessage;
        if (typeof systemMessage === "string") message("system", systemMessage);
        if (entry.subNodes.some((sub) => sub.type === "ai_memory")) {
          entry.warnings.push(
            "its conversation memory is not imported: each run answers afresh (an agent here keeps memory)",
          );
        }
      } else {
        const list = (params.messages as Json | undefined)?.messageValues;
        for (const item of Array.isArray(list) ? list : []) {
          if (!isRecord(item)) continue;
          const type = item.type ?? "SystemMessagePromptTemplate";
          message(
            type === "SystemMessagePromptTemplate"
              ? "system"
              : type === "AIMessagePromptTemplate"
                ? "ai"
                : "user",
            item.message,
          );
        }
      }
      if (entry.subNodes.some((sub) => sub.type === "ai_outputParser")) {
        entry.warnings.push(
          "its output parser is not imported: set a JSON schema on the LLM node for structured answers",
        );
      }
      if (sub && provider === "openai-compatible") {
        entry.warnings.push(
          `its model ran on ${sub.node.type}: add an OpenAI-compatible credential with that server's URL`,
        );
      }
    }
    if (!model) {
      const fallback = findProvider(provider)?.models.find((candidate) =>
        candidate.capabilities.includes("chat"),
      )?.id;
      if (!fallback) return new Refusal("it names no model");
      entry.warnings.push(`it named no model: ${fallback} is used`);
      model = fallback;
    }
    if (isExpression(model)) return new Refusal("its model is chosen by an expression");
    const credentialNames = Object.values({
      ...(entry.node.credentials ?? {}),
      ...(entry.model?.node.credentials ?? {}),
    })
      .map((credential) => (isRecord(credential) ? credential.name : undefined))
      .filter((name): name is string => typeof name === "string");
    if (credentialNames.length > 0) {
      entry.warnings.push(
        `it calls ${provider} with this workspace's key (Settings → Credentials), not n8n's credential "${credentialNames[0]}"`,
      );
    }
    const data: Json = {
      title,
      provider,
      model: model.slice(0, 200),
      prompt: prompt.join("\n\n").slice(0, 100_000),
    };
    if (system.length > 0) data.system = system.join("\n\n").slice(0, 100_000);
    const temperature = options.temperature;
    if (typeof temperature === "number" && temperature >= 0 && temperature <= 2)
      data.temperature = temperature;
    const maxTokens = options.maxTokens ?? options.maxTokensToSample ?? options.maxOutputTokens;
    if (typeof maxTokens === "number" && maxTokens >= 1)
      data.max_tokens = Math.min(Math.round(maxTokens), 1_000_000);
    if (params.jsonOutput === true) data.json_schema = { type: "object" };
    return { ...base, ...errorPolicy(entry.node), type: "llm", data };
  }

  private placeholder(entry: Entry): Json {
    const reason =
      entry.reason ?? (entry.kind.kind === "unmappable" ? entry.kind.reason : "no counterpart here");
    return {
      id: entry.id,
      position: position(entry.node),
      type: "code",
      data: {
        title: `Not imported: ${entry.node.name}`.slice(0, 200),
        language: "javascript",
        code: placeholderCode(entry.node.name, entry.node.type, reason),
        inputs: [],
        outputs: [
          { name: "json", type: "object" },
          { name: "items", type: "array" },
        ],
      },
    };
  }

  // --- assembling ------------------------------------------------------------------------------------

  private assemble(built: Map<Entry, Json>): WorkflowGraphInput {
    const nodes = [...built.values()];
    const edges: Json[] = [];
    const edgeIds = new Set<string>();
    const addEdge = (source: string, target: string, handle?: string) => {
      const id = handle ? `${source}-${handle}-${target}` : `${source}-${target}`;
      if (edgeIds.has(id)) return;
      edgeIds.add(id);
      edges.push({ id, source, target, ...(handle ? { source_handle: handle } : {}) });
    };
    const byName = (name: string) => {
      const entry = this.entries.get(name);
      return entry && built.has(entry) ? entry : undefined;
    };
    for (const edge of this.edges) {
      const from = byName(edge.from);
      const to = byName(edge.to);
      if (!from?.id || !to?.id) continue;
      if (from.shape?.kind === "end") {
        // Nothing follows an End here: what followed n8n's Respond to Webhook follows its input.
        const input = this.inputOf(edge.from);
        const before = input ? byName(input) : undefined;
        if (before?.id) {
          from.warnings.push(`"${edge.to}" ran after it in n8n; here it runs beside it`);
          this.addHandledEdge(before, 0, to.id, addEdge);
        }
        continue;
      }
      this.addHandledEdge(from, edge.output, to.id, addEdge);
    }
    // Each node nothing follows ends the run: an End gets its item as the run's outputs.
    for (const entry of built.keys()) {
      if (!entry.id || entry.shape?.kind === "end") continue;
      if (edges.some((edge) => edge.source === entry.id)) continue;
      const id = this.newId(`end_${entry.id === "start" ? "start" : entry.id}`);
      const at = position(entry.node);
      const isCondition = built.get(entry)?.type === "condition";
      nodes.push({
        id,
        position: { x: at.x + 240, y: at.y },
        type: "end",
        data: {
          title: `End (${entry.node.name})`.slice(0, 200),
          outputs: isCondition
            ? this.itemOutputs(this.inputOf(entry.node.name))
            : this.itemOutputs(entry.node.name),
        },
      });
      if (isCondition) {
        addEdge(entry.id, id, "true");
        addEdge(entry.id, id, "else");
      } else addEdge(entry.id, id);
    }
    for (const entry of this.entries.values()) {
      const sources = new Set(
        this.edges
          .filter((edge) => edge.to === entry.node.name)
          .map((edge) => this.itemSource(edge.from)?.node.name ?? edge.from),
      );
      if (entry.id && sources.size > 1 && entry.shape?.kind !== "start") {
        entry.warnings.push(
          `items reached it from ${[...sources].map((name) => `"${name}"`).join(" and ")}: its $json reads "${this.inputOf(entry.node.name)}"`,
        );
      }
    }
    return { nodes, edges } as unknown as WorkflowGraphInput;
  }

  private addHandledEdge(
    from: Entry,
    output: number,
    target: string,
    addEdge: (source: string, target: string, handle?: string) => void,
  ): void {
    const id = from.id as string;
    if (from.outcome === "placeholder" && from !== this.trigger) {
      if (output > 0) from.warnings.push("its outputs are joined into one: it has one here");
      addEdge(id, target);
      return;
    }
    if (from.kind.kind === "if" && from.id !== "start") {
      if (output > 1) {
        from.warnings.push("its error output is not imported");
        return;
      }
      const isTrue = (output === 0) !== (from.swapsBranches === true);
      addEdge(id, target, isTrue ? "true" : "else");
      return;
    }
    if (output > 0) {
      if (from.node.onError === "continueErrorOutput" && output === 1) addEdge(id, target, "error");
      else from.warnings.push(`its output ${output + 1} is not imported: it has one here`);
      return;
    }
    addEdge(id, target);
  }

  private report(entry: Entry): N8nNodeReport {
    const built = entry.id !== undefined;
    const outcome = entry.outcome ?? (entry.kind.kind === "unmappable" ? "skipped" : "ignored");
    const nodeType = (() => {
      if (!built) return outcome === "mapped" ? "llm" : null;
      if (entry === this.trigger) return "start";
      if (outcome === "placeholder") return "code";
      switch (entry.kind.kind) {
        case "http":
          return "http";
        case "code":
        case "set":
          return "code";
        case "if":
          return "condition";
        case "respond":
          return "end";
        case "llm":
          return "llm";
        default:
          return null;
      }
    })();
    const parent =
      !built && outcome === "mapped"
        ? [...this.entries.values()].find((candidate) => candidate.model === entry)
        : undefined;
    return {
      name: entry.node.name,
      type: entry.node.type,
      outcome,
      node_id: entry.id ?? parent?.id ?? null,
      node_type: nodeType,
      ...(entry.reason || entry.kind.kind === "unmappable"
        ? { reason: entry.reason ?? (entry.kind.kind === "unmappable" ? entry.kind.reason : "") }
        : {}),
      ...(entry.warnings.length > 0 ? { warnings: entry.warnings } : {}),
    };
  }
}

/** Why a node the classification accepted cannot be built after all (its code reads a node not upstream…). */
class Refusal {
  constructor(readonly reason: string) {}
}

/** `node.a.b[0]` for a path, or the problem when a key cannot be written in a template. */
function templatePath(nodeId: string, path: ItemPath): string | { problem: string } {
  let out = nodeId;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (TEMPLATE_KEY.test(part)) out += `.${part}`;
    else return { problem: `the key "${part}" has characters a reference cannot hold` };
  }
  return out;
}

function position(node: N8nNode): { x: number; y: number } {
  const [x, y] = node.position ?? [];
  return { x: Number.isFinite(x) ? Number(x) : 0, y: Number.isFinite(y) ? Number(y) : 0 };
}

/** n8n's "resource locator" parameters (`{ __rl: true, value: "gpt-4o-mini" }`) or a plain value. */
function resourceValue(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (isRecord(value) && typeof value.value === "string" && value.value !== "") return value.value;
  return undefined;
}

function valueType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "string";
  const type = typeof value;
  return type === "number" || type === "boolean" || type === "object" ? type : "string";
}

/** n8n's per-node error settings as this builder's `on_error` and `retry`. */
function errorPolicy(node: N8nNode): Json {
  const out: Json = {};
  const onError = node.onError;
  if (onError === "continueRegularOutput" || node.continueOnFail === true) {
    out.on_error = "continue";
    out.default_output = {};
  } else if (onError === "continueErrorOutput") {
    out.on_error = "branch";
  }
  if (node.retryOnFail === true) {
    const tries = typeof node.maxTries === "number" ? node.maxTries : 3;
    const wait = typeof node.waitBetweenTries === "number" ? node.waitBetweenTries : 1000;
    out.retry = {
      max_attempts: Math.min(Math.max(Math.round(tries), 2), 10),
      backoff: "fixed",
      initial_ms: Math.min(Math.max(Math.round(wait), 0), 600_000),
    };
  }
  return out;
}

/** End outputs for a JSON value a Respond to Webhook sent: its keys one by one, or `result`. */
function valueOutputs(value: unknown, entry: Entry): { name: string; value: string }[] {
  if (isRecord(value) && Object.keys(value).every((key) => IDENTIFIER.test(key))) {
    return Object.entries(value).map(([name, item]) => {
      if (typeof item === "string") return { name, value: item };
      entry.warnings.push(`the response's ${name} is sent as JSON text`);
      return { name, value: JSON.stringify(item) };
    });
  }
  if (typeof value === "string") return [{ name: "result", value }];
  if (value === undefined) {
    entry.warnings.push("its response body could not be read: set the End node's outputs");
    return [];
  }
  return [{ name: "result", value: JSON.stringify(value) }];
}

function replaceDeep(value: unknown, marker: string, replacement: unknown): unknown {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      if (item === marker) value[index] = replacement;
      else replaceDeep(item, marker, replacement);
    }
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item === marker) value[key] = replacement;
      else replaceDeep(item, marker, replacement);
    }
  }
  return value;
}
