import { describe, expect, it } from "vitest";
import { parseWorkflowGraph } from "./parse-graph.ts";
import { type WorkflowGraph, type WorkflowNode, workflowNodeSchema } from "./schema.ts";
import { code, edge, end, graphOf, start, tool } from "./test-support.ts";
import { validateGraph } from "./validate-graph.ts";

/** One node of each of the seven types: start → llm → condition → (http → tool | code) → end. */
function validGraph(): WorkflowGraph {
  return graphOf(
    [
      start([
        { name: "question", type: "string", required: true },
        { name: "limit", type: "number", default: 3 },
      ]),
      {
        id: "llm_1",
        type: "llm",
        data: {
          provider: "openai",
          model: "gpt-4o-mini",
          prompt: "Answer {{start.question}} in {{start.limit}} lines",
          json_schema: { type: "object" },
        },
      },
      {
        id: "cond",
        type: "condition",
        data: {
          cases: [
            {
              id: "long",
              conditions: [
                { left: "{{llm_1.text}}", operator: "matches", right: "^.{10,}$" },
                { left: "{{llm_1.usage.total_tokens}}", operator: "gt", right: 5 },
              ],
            },
          ],
        },
      },
      {
        id: "http_1",
        type: "http",
        data: {
          method: "POST",
          url: "https://api.example.com/items/{{llm_1.json.id}}",
          headers: { "x-question": "{{start.question}}" },
          body: { text: "{{llm_1.text}}", tags: ["{{llm_1.json.tags[0]}}"] },
        },
      },
      tool("tool_1", { status: "{{http_1.status}}", case: "{{cond.matched_case}}" }),
      code("code_1", { text: "{{llm_1.text}}" }, { on_error: "continue", default_output: { result: 0 } }),
      end("end", {
        answer: "{{llm_1.text}}",
        tool: "{{tool_1.result}}",
        code: "{{code_1.result}}",
        failure: "{{code_1.error.message}}",
      }),
    ],
    [
      edge("start", "llm_1"),
      edge("llm_1", "cond"),
      edge("cond", "http_1", "long"),
      edge("cond", "code_1", "else"),
      edge("http_1", "tool_1"),
      edge("tool_1", "end"),
      edge("code_1", "end"),
    ],
  );
}

function variant(change: (graph: WorkflowGraph) => void): WorkflowGraph {
  const graph = validGraph();
  change(graph);
  return graph;
}

function nodeOf(graph: WorkflowGraph, id: string): WorkflowNode {
  const node = graph.nodes.find((candidate) => candidate.id === id);
  if (node === undefined) throw new Error(`no node ${id}`);
  return node;
}

function parsedNode(node: unknown): WorkflowNode {
  return workflowNodeSchema.parse({ position: { x: 0, y: 0 }, ...(node as object) });
}

const mentioning = (...words: string[]) => expect.stringMatching(new RegExp(words.join(".*")));

describe("validateGraph", () => {
  it("accepts a graph using all seven node types, handles and references", () => {
    expect(validateGraph(validGraph())).toEqual([]);
  });

  it("reports duplicate node and edge ids", () => {
    const graph = variant((g) => {
      g.nodes.push(parsedNode(tool("tool_1")));
      g.edges.push({ ...edge("start", "llm_1") });
    });
    expect(validateGraph(graph)).toEqual([
      { node_id: "tool_1", path: "nodes[7].id", code: "duplicate_node_id", message: mentioning("tool_1") },
      {
        edge_id: "start->llm_1",
        path: "edges[7].id",
        code: "duplicate_edge_id",
        message: mentioning("start->llm_1"),
      },
    ]);
  });

  it("requires a start node", () => {
    const graph = graphOf([code("a"), end("end", {})], [edge("a", "end")]);
    expect(validateGraph(graph)).toEqual([
      { path: "nodes", code: "missing_start", message: "The workflow needs a start node." },
    ]);
  });

  it("allows only one start node, naming the extra ones", () => {
    const graph = variant((g) => {
      g.nodes.push(parsedNode({ ...start(), id: "start_2" }));
      g.edges.push(edge("start_2", "end"));
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "start_2",
        path: "nodes[7]",
        code: "multiple_starts",
        message: mentioning("start, start_2"),
      },
    ]);
  });

  it("requires an end node", () => {
    const graph = graphOf([start(), code("a")], [edge("start", "a")]);
    expect(validateGraph(graph)).toEqual([
      { path: "nodes", code: "missing_end", message: "The workflow needs at least one end node." },
    ]);
  });

  it("requires both ends of every edge to exist", () => {
    const graph = variant((g) => {
      g.edges.push({ id: "dangling", source: "ghost", target: "phantom" });
    });
    expect(validateGraph(graph)).toEqual([
      {
        edge_id: "dangling",
        path: "edges[7].source",
        code: "edge_source_not_found",
        message: mentioning("ghost"),
      },
      {
        edge_id: "dangling",
        path: "edges[7].target",
        code: "edge_target_not_found",
        message: mentioning("phantom"),
      },
    ]);
  });

  it("rejects edges into the start node and out of an end node", () => {
    const graph = graphOf(
      [start(), code("a"), end("end", {}), end("end_2", {})],
      [edge("start", "a"), edge("a", "end"), edge("end", "end_2"), edge("a", "start")],
    );
    const codes = validateGraph(graph).map((issue) => [issue.code, issue.edge_id]);
    expect(codes).toEqual([
      ["end_has_outgoing_edge", "end->end_2"],
      ["start_has_incoming_edge", "a->start"],
      ["cycle", undefined],
    ]);
  });

  it("rejects cycles, spelling out the loop", () => {
    const graph = graphOf(
      [start(), code("a"), code("b"), code("c"), end("end", {})],
      [edge("start", "a"), edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "end")],
    );
    expect(validateGraph(graph)).toEqual([
      { node_id: "a", path: "nodes[1]", code: "cycle", message: mentioning("a → b → c → a") },
    ]);
  });

  it("reports nodes that cannot be reached from start", () => {
    const graph = variant((g) => {
      g.nodes.push(parsedNode(code("orphan")), parsedNode(code("orphan_child")));
      g.edges.push(edge("orphan", "orphan_child"), edge("orphan_child", "end"));
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "orphan",
        path: "nodes[7]",
        code: "unreachable_node",
        message: mentioning("orphan", "start"),
      },
      {
        node_id: "orphan_child",
        path: "nodes[8]",
        code: "unreachable_node",
        message: mentioning("orphan_child"),
      },
    ]);
  });

  it("requires edges out of a condition to use a declared case id or else", () => {
    const graph = variant((g) => {
      const [, , toHttp, toCode] = g.edges;
      if (toHttp === undefined || toCode === undefined) throw new Error("fixture changed");
      toHttp.source_handle = "short";
      toCode.source_handle = null;
    });
    expect(validateGraph(graph)).toEqual([
      {
        edge_id: "cond->http_1:long",
        node_id: "cond",
        path: "edges[2].source_handle",
        code: "unknown_handle",
        message: mentioning('"short"', "cond", "long, else"),
      },
      {
        edge_id: "cond->code_1:else",
        node_id: "cond",
        path: "edges[3].source_handle",
        code: "missing_handle",
        message: mentioning("cond", "long, else"),
      },
    ]);
  });

  it("rejects handles on edges out of other nodes", () => {
    const graph = variant((g) => {
      g.edges[0] = edge("start", "llm_1", "out");
    });
    expect(validateGraph(graph)).toEqual([
      {
        edge_id: "start->llm_1:out",
        node_id: "start",
        path: "edges[0].source_handle",
        code: "unexpected_handle",
        message: mentioning("only condition nodes"),
      },
    ]);
  });

  it("rejects duplicate case ids, input and output names", () => {
    const graph = variant((g) => {
      const cond = nodeOf(g, "cond");
      const first = cond.type === "condition" ? cond.data.cases[0] : undefined;
      if (cond.type === "condition" && first) cond.data.cases.push({ ...first });
      const entry = nodeOf(g, "start");
      if (entry.type === "start") entry.data.inputs.push({ name: "limit", type: "number", required: false });
      const last = nodeOf(g, "end");
      if (last.type === "end") last.data.outputs.push({ name: "answer", value: "x" });
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "start",
        path: "nodes[0].data.inputs[2].name",
        code: "duplicate_name",
        message: mentioning("limit"),
      },
      {
        node_id: "cond",
        path: "nodes[2].data.cases[1].id",
        code: "duplicate_case_id",
        message: mentioning("long"),
      },
      {
        node_id: "end",
        path: "nodes[6].data.outputs[4].name",
        code: "duplicate_name",
        message: mentioning("answer"),
      },
    ]);
  });

  it("checks start input defaults against their types", () => {
    const graph = variant((g) => {
      const entry = nodeOf(g, "start");
      if (entry.type === "start")
        entry.data.inputs.push({ name: "tags", type: "array", required: false, default: "a" });
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "start",
        path: "nodes[0].data.inputs[2].default",
        code: "invalid_default",
        message: mentioning("tags"),
      },
    ]);
  });

  it("requires a default_output declaring only real outputs when a node continues on error", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "code_1");
      if (node.type === "code") node.default_output = { result: 0, extra: 1 };
      const other = nodeOf(g, "tool_1");
      if (other.type === "tool") other.on_error = "continue";
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "tool_1",
        path: "nodes[4].default_output",
        code: "default_output_required",
        message: mentioning("tool_1"),
      },
      {
        node_id: "code_1",
        path: "nodes[5].default_output.extra",
        code: "unknown_default_output_field",
        message: mentioning("extra", "result, error"),
      },
    ]);
  });

  it("checks tool names and tool outputs against a catalogue when one is given", () => {
    expect(validateGraph(validGraph(), { tools: { echo: ["result"] } })).toEqual([]);
    expect(validateGraph(validGraph(), { tools: { knowledge_search: ["chunks"] } })).toEqual([
      {
        node_id: "tool_1",
        path: "nodes[4].data.tool",
        code: "unknown_tool",
        message: mentioning("echo", "knowledge_search"),
      },
    ]);
    expect(validateGraph(validGraph(), { tools: { echo: ["items"] } })).toEqual([
      {
        node_id: "end",
        path: "nodes[6].data.outputs[1].value",
        code: "unknown_output_field",
        message: mentioning("tool_1", "result", "items"),
      },
    ]);
  });

  it("reports malformed templates", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "llm_1");
      if (node.type === "llm") node.data.prompt = "Answer {{start}} and {{start. question}}";
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "llm_1",
        path: "nodes[1].data.prompt",
        code: "invalid_template",
        message: mentioning("{{start}}"),
      },
      {
        node_id: "llm_1",
        path: "nodes[1].data.prompt",
        code: "invalid_template",
        message: mentioning("{{start. question}}"),
      },
    ]);
  });

  it("reports references to nodes that do not exist", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "tool_1");
      if (node.type === "tool") node.data.args = { nested: { list: ["{{llm_9.text}}"] } };
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "tool_1",
        path: "nodes[4].data.args.nested.list[0]",
        code: "unknown_node_reference",
        message: mentioning("llm_9", "does not exist"),
      },
    ]);
  });

  it("allows references only to ancestors: not a sibling branch, a downstream node or the node itself", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "code_1");
      if (node.type === "code") {
        node.data.inputs = [
          { name: "sibling", value: "{{http_1.status}}" },
          { name: "downstream", value: "{{end.answer}}" },
          { name: "itself", value: "{{code_1.result}}" },
        ];
      }
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "code_1",
        path: "nodes[5].data.inputs[0].value",
        code: "reference_not_upstream",
        message: mentioning("http_1", "does not run before code_1"),
      },
      {
        node_id: "code_1",
        path: "nodes[5].data.inputs[1].value",
        code: "reference_not_upstream",
        message: mentioning("end"),
      },
      {
        node_id: "code_1",
        path: "nodes[5].data.inputs[2].value",
        code: "reference_not_upstream",
        message: mentioning("code_1"),
      },
    ]);
  });

  it("allows references only to fields the node outputs", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "end");
      if (node.type !== "end") return;
      node.data.outputs = [
        { name: "a", value: "{{start.topic}}" },
        { name: "b", value: "{{http_1.text}}" },
        { name: "c", value: "{{cond.result}}" },
        { name: "d", value: "{{tool_1.error}}" },
      ];
      const llm = nodeOf(g, "llm_1");
      if (llm.type === "llm") delete llm.data.json_schema;
    });
    const issues = validateGraph(graph).map((issue) => [issue.node_id, issue.code, issue.message]);
    expect(issues).toEqual([
      [
        "http_1",
        "unknown_output_field",
        mentioning("{{llm_1.json.id}}", "set json_schema", "text, usage\\.$"),
      ],
      ["http_1", "unknown_output_field", mentioning("{{llm_1.json.tags\\[0\\]}}", "no output json")],
      ["end", "unknown_output_field", mentioning("start has no output topic", "question, limit")],
      ["end", "unknown_output_field", mentioning("http_1 has no output text", "status, headers, body, json")],
      ["end", "unknown_output_field", mentioning("cond has no output result", "matched_case")],
      ["end", "unknown_output_field", mentioning("tool_1 has no output error", "result\\.$")],
    ]);
  });

  it("refuses literal patterns that are invalid or risky, but not templated ones", () => {
    const graph = variant((g) => {
      const node = nodeOf(g, "cond");
      if (node.type !== "condition") return;
      node.data.cases[0]?.conditions.push(
        { left: "{{llm_1.text}}", operator: "matches", right: "^(\\w+\\s?)*$" },
        { left: "{{llm_1.text}}", operator: "matches", right: "{{start.question}}" },
      );
    });
    expect(validateGraph(graph)).toEqual([
      {
        node_id: "cond",
        path: "nodes[2].data.cases[0].conditions[2].right",
        code: "invalid_pattern",
        message: mentioning("long", "nested repetition"),
      },
    ]);
  });
});

describe("parseWorkflowGraph", () => {
  it("names the node of a schema problem", () => {
    const json = JSON.parse(JSON.stringify(validGraph()));
    json.nodes[1].data.temperature = 7;
    json.nodes[6].type = "finish";
    const parsed = parseWorkflowGraph(json);
    expect(parsed).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({
          node_id: "llm_1",
          path: "nodes[1].data.temperature",
          code: "invalid_schema",
        }),
        expect.objectContaining({ node_id: "end", path: "nodes[6].type", code: "invalid_schema" }),
      ],
    });
  });

  it("runs the structural rules after the schema", () => {
    const json = JSON.parse(JSON.stringify(validGraph()));
    json.edges.pop();
    json.edges.pop();
    const parsed = parseWorkflowGraph(json);
    expect(parsed.ok).toBe(false);
    // Cut off from start, the end node is unreachable and no longer downstream of what it reads.
    expect(parsed.ok ? [] : parsed.issues.map((issue) => [issue.node_id, issue.code])).toEqual([
      ["end", "unreachable_node"],
      ["end", "reference_not_upstream"],
      ["end", "reference_not_upstream"],
      ["end", "reference_not_upstream"],
      ["end", "reference_not_upstream"],
    ]);
    expect(parseWorkflowGraph(JSON.parse(JSON.stringify(validGraph())))).toEqual({
      ok: true,
      graph: validGraph(),
    });
  });
});
