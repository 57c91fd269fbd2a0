/**
 * Every way a graph can be rejected, as the `code` of a `GraphIssue`.
 * The API returns them in 422 `details`, so they are stable snake_case names.
 */
export type GraphIssueCode =
  | "invalid_schema"
  | "duplicate_node_id"
  | "duplicate_edge_id"
  | "missing_start"
  | "multiple_starts"
  | "missing_end"
  | "edge_source_not_found"
  | "edge_target_not_found"
  | "start_has_incoming_edge"
  | "end_has_outgoing_edge"
  | "cycle"
  | "unreachable_node"
  | "missing_handle"
  | "unknown_handle"
  | "unexpected_handle"
  | "duplicate_case_id"
  | "duplicate_name"
  | "invalid_default"
  | "default_output_required"
  | "unknown_default_output_field"
  | "unknown_tool"
  | "invalid_template"
  | "unknown_node_reference"
  | "reference_not_upstream"
  | "unknown_output_field"
  | "invalid_pattern";

/** One problem in a graph; `path` points into the graph JSON (`nodes[2].data.prompt`). */
export interface GraphIssue {
  node_id?: string;
  edge_id?: string;
  path: string;
  code: GraphIssueCode;
  message: string;
}

/** The problems with the inputs a run was started with; `path` is `inputs.<name>`. */
export type InputIssueCode = "missing_required_input" | "invalid_input_type";

export interface InputIssue {
  path: string;
  code: InputIssueCode;
  message: string;
}

/**
 * Dotted path of a zod issue or a graph location, with array indexes in brackets.
 *
 * @example formatPath(["nodes", 2, "data", "prompt"]) // "nodes[2].data.prompt"
 */
export function formatPath(parts: readonly PropertyKey[]): string {
  let out = "";
  for (const part of parts) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}
