import { validateGraph, workflowGraphSchema } from "@app/workflow";
import { describe, expect, it } from "vitest";
import type { N8nWorkflow } from "../contract.ts";
import { convertN8n } from "./convert.ts";
import { parseItemAccess, type Translator, translateJson, translateText } from "./expressions.ts";

const translator = (references: Record<string, string> = {}): Translator & { warnings: string[] } => {
  const warnings: string[] = [];
  return {
    warnings,
    warn: (message) => warnings.push(message),
    reference: (access) =>
      references[`${access.node ?? "$"}:${access.path.join(".")}`] ?? { problem: "unknown" },
  };
};

describe("n8n expressions", () => {
  it("reads the item accesses n8n writes, and nothing more", () => {
    expect(parseItemAccess(" $json.body.email ")).toEqual({ node: undefined, path: ["body", "email"] });
    expect(parseItemAccess("$json['first name'][0]")).toEqual({ node: undefined, path: ["first name", 0] });
    expect(parseItemAccess("$input.first().json.id")).toEqual({ node: undefined, path: ["id"] });
    expect(parseItemAccess("$('Get user').item.json.name")).toEqual({ node: "Get user", path: ["name"] });
    expect(parseItemAccess('$("Get user").last().json.name')).toEqual({ node: "Get user", path: ["name"] });
    expect(parseItemAccess('$node["Get user"].json.a?.b')).toEqual({ node: "Get user", path: ["a", "b"] });
    expect(parseItemAccess("$node.Webhook.json.body")).toEqual({ node: "Webhook", path: ["body"] });
    expect(parseItemAccess("$items('Get user')[0].json.x")).toEqual({ node: "Get user", path: ["x"] });
    expect(parseItemAccess("$json")).toEqual({ node: undefined, path: [] });
    for (const code of [
      "$json.name.toUpperCase()",
      "$json.a + 1",
      "$now",
      "JSON.stringify($json)",
      "$json.a ? 1 : 2",
    ]) {
      expect(parseItemAccess(code), code).toBeUndefined();
    }
  });

  it("translates text and JSON, keeping what it cannot translate visible with a warning", () => {
    const t = translator({ "$:name": "start.name", "Shop:total": "shop.json.total" });
    expect(translateText("=Hi {{ $json.name }}, {{ $('Shop').item.json.total }} IDR", t)).toBe(
      "Hi {{start.name}}, {{shop.json.total}} IDR",
    );
    expect(translateText("plain {{ not an expression }}", t)).toBe("plain {{ not an expression }}");
    expect(translateText("={{ $json.name.trim() }}", t)).toBe("[n8n expression: $json.name.trim()]");
    expect(t.warnings).toHaveLength(1);
    expect(
      translateJson('={ "who": "{{ $json.name }}", "n": {{ $("Shop").item.json.total }}, "list": [1] }', t),
    ).toEqual({
      who: "{{start.name}}",
      n: "{{shop.json.total}}",
      list: [1],
    });
    expect(translateJson("={{ $json.name }}", t)).toBe("{{start.name}}");
    expect(translateJson("={ not json", t)).toBeUndefined();
  });
});

const trigger = {
  name: "Start",
  type: "n8n-nodes-base.manualTrigger",
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};
const main = (...targets: string[]) => ({
  main: [targets.map((node) => ({ node, type: "main", index: 0 }))],
});

function valid(workflow: N8nWorkflow, partial = false) {
  const converted = convertN8n(workflow, { partial });
  const graph = workflowGraphSchema.parse(converted.graph);
  expect(validateGraph(graph)).toEqual([]);
  return { ...converted, graph };
}

describe("converting n8n workflows", () => {
  it("expresses a lone negated IF comparison by swapping its branches", () => {
    const { graph } = valid({
      nodes: [
        trigger,
        {
          name: "Not gmail?",
          type: "n8n-nodes-base.if",
          typeVersion: 2,
          parameters: {
            conditions: {
              conditions: [
                {
                  leftValue: "={{ $json.email }}",
                  rightValue: "@gmail.com",
                  operator: { type: "string", operation: "notEndsWith" },
                },
              ],
            },
          },
        },
        { name: "Other", type: "n8n-nodes-base.noOp", parameters: {} },
        { name: "Yes", type: "n8n-nodes-base.set", typeVersion: 3.4, parameters: {} },
        { name: "No", type: "n8n-nodes-base.set", typeVersion: 3.4, parameters: {} },
      ],
      connections: {
        Start: main("Not gmail?"),
        "Not gmail?": {
          main: [[{ node: "Yes", type: "main", index: 0 }], [{ node: "No", type: "main", index: 0 }]],
        },
      },
    });
    const condition = graph.nodes.find((node) => node.type === "condition");
    expect(condition?.data).toMatchObject({
      cases: [
        { id: "true", conditions: [{ left: "{{start.email}}", operator: "ends_with", right: "@gmail.com" }] },
      ],
    });
    expect(graph.edges.filter((edge) => edge.source === "not_gmail")).toEqual([
      { id: "not_gmail-else-yes", source: "not_gmail", target: "yes", source_handle: "else" },
      { id: "not_gmail-true-no", source: "not_gmail", target: "no", source_handle: "true" },
    ]);
  });

  it("maps n8n's error output to an error branch, and retries", () => {
    const { graph } = valid({
      nodes: [
        trigger,
        {
          name: "Call",
          type: "n8n-nodes-base.httpRequest",
          typeVersion: 4.2,
          parameters: { url: "https://example.com" },
          onError: "continueErrorOutput",
          retryOnFail: true,
        },
        { name: "Ok", type: "n8n-nodes-base.set", typeVersion: 3.4, parameters: {} },
        { name: "Failed", type: "n8n-nodes-base.set", typeVersion: 3.4, parameters: {} },
      ],
      connections: {
        Start: main("Call"),
        Call: {
          main: [[{ node: "Ok", type: "main", index: 0 }], [{ node: "Failed", type: "main", index: 0 }]],
        },
      },
    });
    expect(graph.nodes.find((node) => node.id === "call")).toMatchObject({
      on_error: "branch",
      retry: { max_attempts: 3, backoff: "fixed", initial_ms: 1000 },
    });
    expect(graph.edges).toContainEqual({
      id: "call-error-failed",
      source: "call",
      target: "failed",
      source_handle: "error",
    });
  });

  it("keeps one start: a second trigger's nodes follow the first; disabled nodes pass their input through", () => {
    const { graph, nodes } = valid({
      nodes: [
        {
          name: "Hook",
          type: "n8n-nodes-base.webhook",
          typeVersion: 2,
          parameters: { httpMethod: "POST", path: "x" },
        },
        trigger,
        { name: "Off", type: "n8n-nodes-base.set", typeVersion: 3.4, parameters: {}, disabled: true },
        {
          name: "Use",
          type: "n8n-nodes-base.set",
          typeVersion: 3.4,
          parameters: {
            assignments: {
              assignments: [{ name: "v", value: "={{ $('Off').item.json.body.q }}", type: "string" }],
            },
          },
        },
      ],
      connections: { Hook: main("Off"), Start: main("Use"), Off: main("Use") },
    });
    expect(graph.nodes.map((node) => node.id)).toEqual(["start", "use", "end_use"]);
    expect(nodes.find((node) => node.name === "Start")).toMatchObject({ outcome: "ignored" });
    expect(nodes.find((node) => node.name === "Off")).toMatchObject({
      outcome: "ignored",
      reason: expect.stringContaining("disabled"),
    });
    expect(JSON.stringify(graph.nodes[1]?.data)).toContain("{{start.q}}");
  });

  it("refuses an AI Agent with tools, a Code node using n8n-only helpers, and an IF it cannot express, each with the reason", () => {
    expect(() =>
      convertN8n(
        {
          nodes: [
            trigger,
            { name: "Agent", type: "@n8n/n8n-nodes-langchain.agent", parameters: {} },
            { name: "Model", type: "@n8n/n8n-nodes-langchain.lmChatOpenAi", parameters: { model: "gpt-4o" } },
            { name: "Calculator", type: "@n8n/n8n-nodes-langchain.toolCalculator", parameters: {} },
            {
              name: "Code",
              type: "n8n-nodes-base.code",
              parameters: { jsCode: "return [{ json: { at: $now.toISO() } }]" },
            },
            {
              name: "IF",
              type: "n8n-nodes-base.if",
              typeVersion: 2,
              parameters: {
                conditions: {
                  conditions: [
                    { leftValue: "={{ $json.a }}", operator: { type: "array", operation: "lengthGt" } },
                  ],
                },
              },
            },
          ],
          connections: {
            Start: main("Agent"),
            Agent: main("Code"),
            Code: main("IF"),
            Model: { ai_languageModel: [[{ node: "Agent", type: "ai_languageModel", index: 0 }]] },
            Calculator: { ai_tool: [[{ node: "Agent", type: "ai_tool", index: 0 }]] },
          },
        },
        { partial: false },
      ),
    ).toThrow(
      expect.objectContaining({
        code: "n8n_unsupported_nodes",
        details: [
          { path: "nodes[1]", message: expect.stringContaining("an AI Agent with tools") },
          { path: "nodes[3]", message: expect.stringContaining('(tool of "Agent")') },
          { path: "nodes[4]", message: expect.stringContaining("Luxon dates") },
          { path: "nodes[5]", message: expect.stringContaining('"array lengthGt" has no counterpart') },
        ],
      }),
    );
  });

  it("an AI Agent without tools is an LLM node with its model and system message", () => {
    const { graph, nodes } = valid({
      nodes: [
        { name: "Chat", type: "@n8n/n8n-nodes-langchain.chatTrigger", parameters: {} },
        {
          name: "Agent",
          type: "@n8n/n8n-nodes-langchain.agent",
          parameters: { options: { systemMessage: "Be brief." } },
        },
        {
          name: "Claude",
          type: "@n8n/n8n-nodes-langchain.lmChatAnthropic",
          parameters: { model: "claude-3-5-haiku-latest" },
        },
      ],
      connections: {
        Chat: main("Agent"),
        Claude: { ai_languageModel: [[{ node: "Agent", type: "ai_languageModel", index: 0 }]] },
      },
    });
    expect(graph.nodes.find((node) => node.type === "llm")?.data).toMatchObject({
      provider: "anthropic",
      model: "claude-3-5-haiku-latest",
      system: "Be brief.",
      prompt: "{{start.chatInput}}",
    });
    expect(graph.nodes.find((node) => node.type === "end")?.data).toMatchObject({
      outputs: [{ name: "text", value: "{{agent.text}}" }],
    });
    expect(nodes.find((node) => node.name === "Claude")).toMatchObject({
      outcome: "mapped",
      node_id: "agent",
    });
  });
});
