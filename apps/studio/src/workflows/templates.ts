import { CODE_TEMPLATES } from "../editor/languages.ts";
import type { ApiGraph } from "./graph.ts";

export interface WorkflowTemplate {
  id: string;
  name: string;
  description: string;
  graph: ApiGraph;
}

/** A template's LLM nodes run on this until `withModel` puts the workspace's own provider in. */
const LLM = { provider: "openai", model: "gpt-4o-mini" };

/**
 * The template's graph with its LLM nodes on `model` (the workspace's provider with a model its key
 * lists): on OpenAI, the first run of a template failed in a workspace whose only key is another's.
 *
 * @example withModel(template.graph, { provider: "anthropic", model: "claude-sonnet-4-5" })
 */
export function withModel(graph: ApiGraph, model: { provider: string; model: string } | undefined): ApiGraph {
  if (!model) return graph;
  return {
    ...graph,
    nodes: graph.nodes.map((node) =>
      node.type === "llm" ? { ...node, data: { ...node.data, ...model } } : node,
    ),
  };
}

const start = (inputs: { name: string; type: string }[]) => ({
  id: "start",
  type: "start" as const,
  position: { x: 0, y: 0 },
  data: { inputs: inputs.map((input) => ({ ...input, required: true })) },
});
const end = (id: string, x: number, y: number, outputs: { name: string; value: string }[]) => ({
  id,
  type: "end" as const,
  position: { x, y },
  data: { outputs },
});
const edge = (source: string, target: string, sourceHandle?: string) => ({
  id: `e_${source}_${sourceHandle ?? "out"}_${target}`,
  source,
  target,
  ...(sourceHandle ? { source_handle: sourceHandle } : {}),
});

/**
 * Ready-made workflows to start from: each is valid as it is (the server's validation accepts it)
 * and needs only a provider key, a knowledge base or a URL of the user's own to be useful.
 */
export const WORKFLOW_TEMPLATES: WorkflowTemplate[] = [
  {
    id: "kb-answer",
    name: "Answer from a knowledge base",
    description:
      "Answers from the passages of your knowledge bases: pick them in the LLM node (it then also outputs citations).",
    graph: {
      nodes: [
        start([{ name: "question", type: "string" }]),
        {
          id: "answer",
          type: "llm",
          position: { x: 300, y: 0 },
          data: {
            ...LLM,
            system: "Answer only from the passages provided. Say so when they do not hold the answer.",
            prompt: "{{start.question}}",
            top_k: 5,
          },
        },
        end("end", 600, 0, [{ name: "answer", value: "{{answer.text}}" }]),
      ],
      edges: [edge("start", "answer"), edge("answer", "end")],
    },
  },
  {
    id: "summarise-url",
    name: "Summarise a URL",
    description: "Fetches a page and summarises it in five bullet points.",
    graph: {
      nodes: [
        start([{ name: "url", type: "string" }]),
        {
          id: "fetch",
          type: "http",
          position: { x: 300, y: 0 },
          data: { method: "GET", url: "{{start.url}}", timeout_ms: 15000 },
        },
        {
          id: "summary",
          type: "llm",
          position: { x: 600, y: 0 },
          data: {
            ...LLM,
            system: "You summarise web pages for busy readers.",
            prompt: "Summarise this page in five bullet points:\n\n{{fetch.body}}",
          },
        },
        end("end", 900, 0, [{ name: "summary", value: "{{summary.text}}" }]),
      ],
      edges: [edge("start", "fetch"), edge("fetch", "summary"), edge("summary", "end")],
    },
  },
  {
    id: "classify-route",
    name: "Classify and route",
    description: "Labels a support message as urgent or not and answers each kind its own way.",
    graph: {
      nodes: [
        start([{ name: "message", type: "string" }]),
        {
          id: "classify",
          type: "llm",
          position: { x: 300, y: 0 },
          data: {
            ...LLM,
            system: "Answer with exactly one word: urgent or normal.",
            prompt: "{{start.message}}",
          },
        },
        {
          id: "route",
          type: "condition",
          position: { x: 600, y: 0 },
          data: {
            cases: [
              {
                id: "urgent",
                logic: "and",
                conditions: [{ left: "{{classify.text}}", operator: "contains", right: "urgent" }],
              },
            ],
          },
        },
        end("escalate", 900, -80, [{ name: "route", value: "escalated: {{start.message}}" }]),
        end("reply", 900, 80, [{ name: "route", value: "queued: {{start.message}}" }]),
      ],
      edges: [
        edge("start", "classify"),
        edge("classify", "route"),
        edge("route", "escalate", "urgent"),
        edge("route", "reply", "else"),
      ],
    },
  },
  {
    id: "api-format",
    name: "Call an API and format",
    description: "Calls a JSON API, then shapes its answer with a few lines of code.",
    graph: {
      nodes: [
        start([{ name: "url", type: "string" }]),
        {
          id: "call",
          type: "http",
          position: { x: 300, y: 0 },
          data: { method: "GET", url: "{{start.url}}", headers: { accept: "application/json" } },
        },
        {
          id: "format",
          type: "code",
          position: { x: 600, y: 0 },
          data: {
            language: "python",
            code: `def main(inputs: dict) -> dict:
    data = inputs["data"]
    keys = sorted(data.keys()) if isinstance(data, dict) else []
    return {"result": f"status {inputs['status']}, fields: {', '.join(keys)}"}
`,
            inputs: [
              { name: "data", value: "{{call.json}}" },
              { name: "status", value: "{{call.status}}" },
            ],
            outputs: [{ name: "result", type: "string" }],
          },
        },
        end("end", 900, 0, [{ name: "result", value: "{{format.result}}" }]),
      ],
      edges: [edge("start", "call"), edge("call", "format"), edge("format", "end")],
    },
  },
  {
    id: "code-transform",
    name: "Transform with code",
    description: "Runs your Python (or JavaScript, Go, Rust) on the inputs: no model needed.",
    graph: {
      nodes: [
        start([{ name: "value", type: "string" }]),
        {
          id: "transform",
          type: "code",
          position: { x: 300, y: 0 },
          data: {
            language: "python",
            code: CODE_TEMPLATES.python,
            inputs: [{ name: "value", value: "{{start.value}}" }],
            outputs: [{ name: "result", type: "string" }],
          },
        },
        end("end", 600, 0, [{ name: "result", value: "{{transform.result}}" }]),
      ],
      edges: [edge("start", "transform"), edge("transform", "end")],
    },
  },
];
