import type { InputIssue } from "./graph-issue.ts";
import type { StartInput, ValueType, WorkflowGraph } from "./schema.ts";

export type StartInputsResult =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; issues: InputIssue[] };

/**
 * Checks the inputs a run starts with against the start node's declarations: required ones present,
 * types right, defaults applied. Optional inputs left out become `null` so templates can still read
 * them; inputs the start node does not declare are dropped.
 *
 * @example resolveStartInputs({ inputs: [{ name: "n", type: "number", required: false, default: 1 }] }, {}) // { ok: true, values: { n: 1 } }
 */
export function resolveStartInputs(
  start: { inputs: readonly StartInput[] },
  provided: Readonly<Record<string, unknown>>,
): StartInputsResult {
  const values: Record<string, unknown> = {};
  const issues: InputIssue[] = [];
  for (const input of start.inputs) {
    const given = Object.hasOwn(provided, input.name) ? provided[input.name] : undefined;
    if (given === undefined) {
      if (input.default !== undefined) values[input.name] = input.default;
      else if (input.required) {
        issues.push({
          path: `inputs.${input.name}`,
          code: "missing_required_input",
          message: `Input ${input.name} is required.`,
        });
      } else values[input.name] = null;
      continue;
    }
    if (!matchesValueType(given, input.type)) {
      issues.push({
        path: `inputs.${input.name}`,
        code: "invalid_input_type",
        message: `Input ${input.name} must be ${article(input.type)} ${input.type}, got ${describeType(given)}.`,
      });
      continue;
    }
    values[input.name] = given;
  }
  return issues.length === 0 ? { ok: true, values } : { ok: false, issues };
}

/** The JSON Schema of a run's inputs. */
export interface StartInputsJsonSchema {
  type: "object";
  properties: Record<string, unknown>;
  required?: string[];
}

/**
 * A workflow's Start inputs as the JSON Schema of its arguments, which is what an MCP client and an
 * agent's model are told when the workflow is their tool: names, types, descriptions, defaults, and
 * as required those a run cannot start without.
 *
 * @example startInputsJsonSchema(workflow.graph) // { type: "object", properties: { person: { type: "string" } }, required: ["person"] }
 */
export function startInputsJsonSchema(graph: Pick<WorkflowGraph, "nodes">): StartInputsJsonSchema {
  const start = graph.nodes.find((node) => node.type === "start");
  const inputs = start?.type === "start" ? start.data.inputs : [];
  const properties: Record<string, unknown> = {};
  for (const input of inputs) {
    properties[input.name] = {
      type: input.type,
      ...(input.description ? { description: input.description } : {}),
      ...(input.default !== undefined ? { default: input.default } : {}),
    };
  }
  const required = inputs
    .filter((input) => input.required && input.default === undefined)
    .map((input) => input.name);
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * Whether a JSON value has the declared type (`object` means a plain object, not an array or null).
 *
 * @example matchesValueType([1], "array") // true
 */
export function matchesValueType(value: unknown, type: ValueType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
  }
}

/**
 * The JSON type name of a value, for messages.
 *
 * @example describeType(null) // "null"
 */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function article(type: ValueType): string {
  return type === "object" || type === "array" ? "an" : "a";
}
