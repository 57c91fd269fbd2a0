import type { WorkflowNode } from "./schema.ts";

/** Output fields of each tool by tool name; tools not listed output `result`. */
export type ToolOutputs = Readonly<Record<string, readonly string[]>>;

/** Outputs of a node that failed under `on_error: "continue"` (besides its `default_output`) or `"branch"`. */
export const ERROR_OUTPUT_FIELD = "error";

const LLM_FIELDS = ["text", "usage"] as const;
const HTTP_FIELDS = ["status", "headers", "body", "json"] as const;
const TOOL_DEFAULT_FIELDS = ["result"] as const;

/**
 * The fields other nodes may reference as `{{node_id.<field>}}`; undefined for an end node, which
 * nothing follows.
 *
 * @example declaredOutputs(codeNode) // ["total", "items"] (its declared outputs)
 */
export function declaredOutputs(node: WorkflowNode, tools?: ToolOutputs): readonly string[] | undefined {
  const own = ownOutputs(node, tools);
  if (own === undefined) return undefined;
  if ("on_error" in node && (node.on_error === "continue" || node.on_error === "branch")) {
    return [...own, ERROR_OUTPUT_FIELD];
  }
  return own;
}

function ownOutputs(node: WorkflowNode, tools?: ToolOutputs): readonly string[] | undefined {
  switch (node.type) {
    case "start":
      return node.data.inputs.map((input) => input.name);
    case "end":
      return undefined;
    case "llm":
      return [
        ...LLM_FIELDS,
        ...(node.data.json_schema === undefined ? [] : ["json"]),
        ...((node.data.knowledge_base_ids?.length ?? 0) > 0 ? ["citations"] : []),
      ];
    case "code":
      return node.data.outputs.map((output) => output.name);
    case "http":
      return HTTP_FIELDS;
    case "condition":
      return ["matched_case"];
    case "tool":
      return tools?.[node.data.tool] ?? TOOL_DEFAULT_FIELDS;
  }
}
