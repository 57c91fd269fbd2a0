import { ancestorsOf, findCycles, type GraphIndex, indexGraph, reachableFrom } from "./graph-index.ts";
import { formatPath, type GraphIssue } from "./graph-issue.ts";
import { patternProblem } from "./guarded-regex.ts";
import { TEMPLATE_FIELDS } from "./node-inputs.ts";
import { declaredOutputs, type ToolOutputs } from "./node-outputs.ts";
import { ELSE_HANDLE, ERROR_HANDLE, type WorkflowGraph, type WorkflowNode } from "./schema.ts";
import { matchesValueType } from "./start-inputs.ts";
import { parseTemplate } from "./template.ts";

export interface ValidateOptions {
  /**
   * Output fields per tool name. When given, a tool node naming a tool not listed is an issue and
   * references to tool outputs are checked against the list; otherwise every tool outputs `result`.
   */
  tools?: ToolOutputs;
}

type Path = readonly PropertyKey[];

/**
 * The structural problems of a schema-valid graph, each naming the node or edge at fault; an empty
 * list means the graph can run.
 *
 * @example validateGraph({ nodes: [startNode], edges: [] }) // [{ code: "missing_end", path: "nodes", … }]
 */
export function validateGraph(graph: WorkflowGraph, options: ValidateOptions = {}): GraphIssue[] {
  const index = indexGraph(graph);
  const issues: GraphIssue[] = [
    ...duplicateIds(graph),
    ...startAndEnd(graph),
    ...edgeProblems(graph, index),
    ...cycles(index),
    ...unreachable(graph, index),
  ];
  for (const [position, node] of graph.nodes.entries()) {
    issues.push(...nodeDataProblems(node, ["nodes", position], options));
    issues.push(...templateProblems(node, ["nodes", position], index, options));
  }
  return issues;
}

function duplicateIds(graph: WorkflowGraph): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const nodeIds = new Set<string>();
  for (const [position, node] of graph.nodes.entries()) {
    if (nodeIds.has(node.id)) {
      issues.push({
        node_id: node.id,
        path: formatPath(["nodes", position, "id"]),
        code: "duplicate_node_id",
        message: `Node id ${node.id} is used by more than one node.`,
      });
    }
    nodeIds.add(node.id);
  }
  const edgeIds = new Set<string>();
  for (const [position, edge] of graph.edges.entries()) {
    if (edgeIds.has(edge.id)) {
      issues.push({
        edge_id: edge.id,
        path: formatPath(["edges", position, "id"]),
        code: "duplicate_edge_id",
        message: `Edge id ${edge.id} is used by more than one edge.`,
      });
    }
    edgeIds.add(edge.id);
  }
  return issues;
}

function startAndEnd(graph: WorkflowGraph): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const starts = graph.nodes.flatMap((node, position) => (node.type === "start" ? [{ node, position }] : []));
  if (starts.length === 0) {
    issues.push({ path: "nodes", code: "missing_start", message: "The workflow needs a start node." });
  }
  if (starts.length > 1) {
    const ids = starts.map((entry) => entry.node.id).join(", ");
    for (const extra of starts.slice(1)) {
      issues.push({
        node_id: extra.node.id,
        path: formatPath(["nodes", extra.position]),
        code: "multiple_starts",
        message: `Only one start node is allowed; found ${ids}.`,
      });
    }
  }
  if (!graph.nodes.some((node) => node.type === "end")) {
    issues.push({ path: "nodes", code: "missing_end", message: "The workflow needs at least one end node." });
  }
  return issues;
}

function edgeProblems(graph: WorkflowGraph, index: GraphIndex): GraphIssue[] {
  const issues: GraphIssue[] = [];
  for (const [position, edge] of graph.edges.entries()) {
    const at = (field: string) => formatPath(["edges", position, field]);
    const source = index.nodes.get(edge.source);
    const target = index.nodes.get(edge.target);
    if (source === undefined) {
      issues.push({
        edge_id: edge.id,
        path: at("source"),
        code: "edge_source_not_found",
        message: `Edge ${edge.id} starts at ${edge.source}, which is not a node of this workflow.`,
      });
    }
    if (target === undefined) {
      issues.push({
        edge_id: edge.id,
        path: at("target"),
        code: "edge_target_not_found",
        message: `Edge ${edge.id} ends at ${edge.target}, which is not a node of this workflow.`,
      });
    }
    if (target?.type === "start") {
      issues.push({
        edge_id: edge.id,
        node_id: target.id,
        path: at("target"),
        code: "start_has_incoming_edge",
        message: `Edge ${edge.id} leads into start node ${target.id}; the start node has no inputs.`,
      });
    }
    if (source === undefined) continue;
    if (source.type === "end") {
      issues.push({
        edge_id: edge.id,
        node_id: source.id,
        path: at("source"),
        code: "end_has_outgoing_edge",
        message: `Edge ${edge.id} leaves end node ${source.id}; end nodes have no outgoing edges.`,
      });
    }
    const handleIssue = handleProblem(source, edge.source_handle ?? undefined, edge.id);
    if (handleIssue)
      issues.push({ edge_id: edge.id, node_id: source.id, path: at("source_handle"), ...handleIssue });
  }
  return issues;
}

function handleProblem(
  source: WorkflowNode,
  handle: string | undefined,
  edgeId: string,
): Pick<GraphIssue, "code" | "message"> | undefined {
  if (source.type !== "condition") {
    if (handle === undefined) return undefined;
    const isBranching = "on_error" in source && source.on_error === "branch";
    if (handle === ERROR_HANDLE && isBranching) return undefined;
    if (handle === ERROR_HANDLE) {
      return {
        code: "unexpected_handle",
        message: `Edge ${edgeId} leaves the error handle of ${source.id}, which has no error branch; set its on_error to "branch".`,
      };
    }
    return {
      code: "unexpected_handle",
      message: isBranching
        ? `Edge ${edgeId} has source_handle "${handle}"; out of ${source.id} only "${ERROR_HANDLE}" (its error branch) or none is allowed.`
        : `Edge ${edgeId} has source_handle "${handle}", but only condition nodes and nodes with on_error: "branch" have handles (${source.id} is ${source.type}).`,
    };
  }
  const declared = [...source.data.cases.map((entry) => entry.id), ELSE_HANDLE];
  if (handle === undefined) {
    return {
      code: "missing_handle",
      message: `Edge ${edgeId} leaves condition ${source.id} without a source_handle; use one of ${declared.join(", ")}.`,
    };
  }
  if (declared.includes(handle)) return undefined;
  return {
    code: "unknown_handle",
    message: `Edge ${edgeId} uses handle "${handle}", which condition ${source.id} does not declare; use one of ${declared.join(", ")}.`,
  };
}

function cycles(index: GraphIndex): GraphIssue[] {
  return findCycles(index).map((cycle) => {
    const first = cycle[0] ?? "";
    return {
      node_id: first,
      path: formatPath(["nodes", index.positions.get(first) ?? 0]),
      code: "cycle",
      message: `The workflow has a cycle: ${[...cycle, first].join(" → ")}. Workflows must not loop.`,
    };
  });
}

function unreachable(graph: WorkflowGraph, index: GraphIndex): GraphIssue[] {
  const start = graph.nodes.find((node) => node.type === "start");
  if (start === undefined) return [];
  const reached = reachableFrom(index, start.id);
  const issues: GraphIssue[] = [];
  for (const [id, node] of index.nodes) {
    // Extra start nodes are already reported as multiple_starts.
    if (reached.has(id) || node.type === "start") continue;
    issues.push({
      node_id: id,
      path: formatPath(["nodes", index.positions.get(id) ?? 0]),
      code: "unreachable_node",
      message: `Node ${id} cannot be reached from start node ${start.id}.`,
    });
  }
  return issues;
}

function nodeDataProblems(node: WorkflowNode, at: Path, options: ValidateOptions): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const issue = (path: Path, code: GraphIssue["code"], message: string) =>
    issues.push({ node_id: node.id, path: formatPath(path), code, message });
  const duplicates = (names: readonly string[], listPath: Path, what: string) => {
    const seen = new Set<string>();
    for (const [position, name] of names.entries()) {
      if (seen.has(name)) {
        issue(
          [...listPath, position, "name"],
          "duplicate_name",
          `Node ${node.id} declares ${what} ${name} twice.`,
        );
      }
      seen.add(name);
    }
  };
  const data = [...at, "data"];
  switch (node.type) {
    case "start":
      duplicates(
        node.data.inputs.map((input) => input.name),
        [...data, "inputs"],
        "input",
      );
      for (const [position, input] of node.data.inputs.entries()) {
        if (input.default === undefined || matchesValueType(input.default, input.type)) continue;
        issue(
          [...data, "inputs", position, "default"],
          "invalid_default",
          `The default of input ${input.name} of ${node.id} is not a ${input.type}.`,
        );
      }
      break;
    case "end":
      duplicates(
        node.data.outputs.map((output) => output.name),
        [...data, "outputs"],
        "output",
      );
      break;
    case "code":
      duplicates(
        node.data.inputs.map((input) => input.name),
        [...data, "inputs"],
        "input",
      );
      duplicates(
        node.data.outputs.map((output) => output.name),
        [...data, "outputs"],
        "output",
      );
      break;
    case "condition": {
      const seen = new Set<string>();
      for (const [position, entry] of node.data.cases.entries()) {
        if (seen.has(entry.id)) {
          issue(
            [...data, "cases", position, "id"],
            "duplicate_case_id",
            `Condition ${node.id} declares case ${entry.id} twice.`,
          );
        }
        seen.add(entry.id);
        for (const [index, condition] of entry.conditions.entries()) {
          const right = condition.right;
          if (condition.operator !== "matches" || typeof right !== "string" || right.includes("{{")) continue;
          const problem = patternProblem(right);
          if (problem === undefined) continue;
          issue(
            [...data, "cases", position, "conditions", index, "right"],
            "invalid_pattern",
            `Condition ${node.id}, case ${entry.id}: the pattern is refused: ${problem}.`,
          );
        }
      }
      break;
    }
    case "tool":
      if (options.tools !== undefined && !Object.hasOwn(options.tools, node.data.tool)) {
        issue(
          [...data, "tool"],
          "unknown_tool",
          `Node ${node.id} uses tool ${node.data.tool}, which does not exist; available: ${Object.keys(options.tools).join(", ")}.`,
        );
      }
      break;
  }
  if ("on_error" in node && node.on_error === "continue") {
    if (node.default_output === undefined) {
      issue(
        [...at, "default_output"],
        "default_output_required",
        `Node ${node.id} continues on error, so it needs a default_output to pass on.`,
      );
    } else {
      const fields = declaredOutputs(node, options.tools) ?? [];
      for (const key of Object.keys(node.default_output)) {
        if (fields.includes(key)) continue;
        issue(
          [...at, "default_output", key],
          "unknown_default_output_field",
          `The default_output of ${node.id} sets ${key}, which ${node.id} does not output (${fields.join(", ")}).`,
        );
      }
    }
  }
  return issues;
}

function templateProblems(
  node: WorkflowNode,
  at: Path,
  index: GraphIndex,
  options: ValidateOptions,
): GraphIssue[] {
  const issues: GraphIssue[] = [];
  let ancestors: Set<string> | undefined;
  const data: Readonly<Record<string, unknown>> = node.data;
  for (const field of TEMPLATE_FIELDS[node.type]) {
    forEachString(data[field.key], [...at, "data", field.key], (text, path) => {
      for (const part of parseTemplate(text)) {
        if (part.kind === "text") continue;
        const issue = (code: GraphIssue["code"], message: string) =>
          issues.push({ node_id: node.id, path: formatPath(path), code, message });
        if (part.kind === "malformed") {
          issue(
            "invalid_template",
            `${part.text} in ${node.id} is not a valid reference; write {{node_id.field}}, optionally followed by .key or [index].`,
          );
          continue;
        }
        const { node_id: target, path: fieldPath } = part.reference;
        const written = `{{${part.reference.source}}}`;
        const referenced = index.nodes.get(target);
        if (referenced === undefined) {
          issue(
            "unknown_node_reference",
            `${written} in ${node.id} names node ${target}, which does not exist.`,
          );
          continue;
        }
        ancestors ??= ancestorsOf(index, node.id);
        if (!ancestors.has(target) || target === node.id) {
          issue(
            "reference_not_upstream",
            `${written} in ${node.id} names node ${target}, which does not run before ${node.id}.`,
          );
          continue;
        }
        const field = String(fieldPath[0]);
        const fields = declaredOutputs(referenced, options.tools);
        if (fields?.includes(field)) continue;
        const hint = referenced.type === "llm" && field === "json" ? " (set json_schema to get json)" : "";
        issue(
          "unknown_output_field",
          fields === undefined || fields.length === 0
            ? `${written} in ${node.id}: node ${target} (${referenced.type}) has no outputs.`
            : `${written} in ${node.id}: node ${target} has no output ${field}${hint}; it outputs ${fields.join(", ")}.`,
        );
      }
    });
  }
  return issues;
}

function forEachString(value: unknown, path: Path, visit: (text: string, path: Path) => void): void {
  if (typeof value === "string") {
    if (value.includes("{{")) visit(value, path);
    return;
  }
  if (Array.isArray(value)) {
    for (const [position, item] of value.entries()) forEachString(item, [...path, position], visit);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) forEachString(item, [...path, key], visit);
  }
}
