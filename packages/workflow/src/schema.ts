import { z } from "zod";

// Every object here is strict: an unknown key is refused (a 422 naming it) rather than dropped,
// since a dropped key is a setting silently not applied (`data.timeout_ms` on a Code node, where
// the real field is the node's).

/**
 * Node ids appear inside templates (`{{node_id.field}}`), so they are limited to the characters the
 * template grammar accepts: no dots, braces or spaces.
 */
export const nodeIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -")
  .describe("Node id; used in templates as {{node_id.field}}");

/** Names of inputs and outputs become template fields and code parameters, so they are identifiers. */
const identifierSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must start with a letter or _ and use letters, digits or _");

const titleSchema = z.string().max(200).optional().describe("Label shown in the editor");

/** The value types a start input or a code output can declare. */
export const valueTypeSchema = z.enum(["string", "number", "boolean", "object", "array"]);

export const startInputSchema = z.strictObject({
  name: identifierSchema,
  type: valueTypeSchema,
  required: z.boolean().default(false),
  default: z.unknown().optional().describe("Used when the run does not supply the input"),
  description: z.string().max(2000).optional(),
});

export const startDataSchema = z.strictObject({
  title: titleSchema,
  inputs: z.array(startInputSchema).max(100).default([]),
});

export const endDataSchema = z.strictObject({
  title: titleSchema,
  outputs: z
    .array(
      z.strictObject({
        name: identifierSchema,
        value: z.string().max(100_000).describe('A template, e.g. "{{llm_1.text}}"'),
      }),
    )
    .max(100)
    .default([]),
});

export const llmDataSchema = z.strictObject({
  title: titleSchema,
  provider: z.string().min(1).max(100),
  model: z.string().min(1).max(200),
  system: z.string().max(100_000).optional(),
  prompt: z.string().max(100_000),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  knowledge_base_ids: z.array(z.string().max(64)).max(32).optional(),
  top_k: z.number().int().min(1).max(50).optional(),
  json_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("JSON Schema of a structured answer; the node then also outputs `json`"),
});

/** The entry point the sandbox calls in each language, for the API's descriptions (docs/workflows.md). */
export const CODE_ENTRY_POINTS =
  "Source code that defines the entry point of its language: Python `def main(inputs: dict) -> dict` " +
  "(async allowed); JavaScript `function main(inputs)` returning an object (async allowed); " +
  "Go `func Main(inputs map[string]any) (map[string]any, error)` (`package main` optional); " +
  "Rust `fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>` (not `fn main`, " +
  "which the sandbox's wrapper defines). The returned object must be a JSON object.";

export const codeDataSchema = z.strictObject({
  title: titleSchema,
  language: z.enum(["python", "javascript", "go", "rust"]),
  code: z.string().min(1).max(100_000).describe(`${CODE_ENTRY_POINTS} Never template-resolved.`),
  inputs: z
    .array(z.strictObject({ name: identifierSchema, value: z.unknown().describe("A template or a literal") }))
    .max(100)
    .default([]),
  outputs: z
    .array(z.strictObject({ name: identifierSchema, type: valueTypeSchema }))
    .max(100)
    .default([]),
});

const credentialIdSchema = z
  .string()
  .min(1)
  .max(64)
  .describe("A stored credential of the workspace whose secret is used (kept out of the workflow)");

/** Exactly one of the inline secret or a stored credential's id. */
function oneSecret<T extends z.ZodRawShape>(shape: T, secret: string) {
  return z
    .strictObject(shape)
    .refine(
      (value: Record<string, unknown>) =>
        (value[secret] === undefined) !== (value.credential_id === undefined),
      { message: `give either ${secret} or credential_id`, path: [secret] },
    )
    .meta({
      // The refinement, as JSON Schema says it: the OpenAPI document is as strict as the check.
      oneOf: [
        { required: [secret], not: { required: ["credential_id"] } },
        { required: ["credential_id"], not: { required: [secret] } },
      ],
    });
}

export const httpAuthSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("none") }),
  oneSecret(
    {
      type: z.literal("bearer"),
      token: z.string().max(10_000).optional(),
      credential_id: credentialIdSchema.optional(),
    },
    "token",
  ),
  oneSecret(
    {
      type: z.literal("basic"),
      username: z.string().max(1000),
      password: z.string().max(1000).optional(),
      credential_id: credentialIdSchema.optional(),
    },
    "password",
  ),
  oneSecret(
    {
      type: z.literal("api_key"),
      header: z.string().min(1).max(200),
      value: z.string().max(10_000).optional(),
      credential_id: credentialIdSchema.optional(),
    },
    "value",
  ),
]);

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One of `HTTP_METHODS`, or a template (`{{start.method}}`) whose value is checked when the node runs. */
const httpMethodSchema = z.union([
  z.enum(HTTP_METHODS),
  z
    .string()
    .max(200)
    .regex(/\{\{[^{}]+\}\}/, `must be one of ${HTTP_METHODS.join(", ")}, or a template`),
]);

export const httpDataSchema = z.strictObject({
  title: titleSchema,
  method: httpMethodSchema,
  url: z.string().min(1).max(8192),
  headers: z.record(z.string(), z.string().max(10_000)).optional(),
  query: z.record(z.string(), z.string().max(10_000)).optional(),
  body: z.unknown().optional().describe("A string, or JSON whose strings may hold templates"),
  auth: httpAuthSchema.optional(),
  timeout_ms: z.number().int().min(1).max(600_000).optional().describe("Per request attempt"),
  retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe(
      "Deprecated: the node's `retry` instead. Read as retry: { max_attempts: retries + 1, backoff: exponential, initial_ms: 250 }",
    ),
});

export const conditionOperatorSchema = z.enum([
  "eq",
  "ne",
  "contains",
  "not_contains",
  "starts_with",
  "ends_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "empty",
  "not_empty",
  "matches",
]);

const operandSchema = z.union([z.string().max(100_000), z.number(), z.boolean(), z.null()]);

export const conditionSchema = z.strictObject({
  left: operandSchema.describe('Usually a template, e.g. "{{start.age}}"'),
  operator: conditionOperatorSchema,
  right: operandSchema.optional().describe("Unused by empty and not_empty; a pattern for matches"),
});

/** `else` is the implicit last case, so no declared case may take that id. */
export const conditionCaseSchema = z.strictObject({
  id: nodeIdSchema.refine((id) => id !== "else", { message: '"else" is the implicit case; use another id' }),
  logic: z.enum(["and", "or"]).default("and"),
  conditions: z.array(conditionSchema).min(1).max(50),
});

export const conditionDataSchema = z.strictObject({
  title: titleSchema,
  cases: z.array(conditionCaseSchema).min(1).max(50),
});

export const toolDataSchema = z.strictObject({
  title: titleSchema,
  tool: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must start with a letter and use letters, digits, _ or -"),
  args: z.record(z.string(), z.unknown()).default({}).describe("Values may hold templates"),
});

const positionSchema = z.strictObject({ x: z.number(), y: z.number() });

/** The most attempts a node's `retry` may ask for (the first one included). */
export const MAX_NODE_ATTEMPTS = 10;

/**
 * How a failed attempt of a node is tried again: the delay before attempt n+1 is `initial_ms`
 * (fixed) or `initial_ms * 2^(n-1)` (exponential), or what a 429/5xx answer's `Retry-After` asks
 * for, never more than `max_ms`.
 */
export const retryPolicySchema = z
  .strictObject({
    max_attempts: z
      .number()
      .int()
      .min(1)
      .max(MAX_NODE_ATTEMPTS)
      .describe("Attempts in all, the first one included (1 = no retry)"),
    backoff: z.enum(["fixed", "exponential"]).default("exponential"),
    initial_ms: z
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(1_000)
      .describe("Delay before the second attempt"),
    max_ms: z
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .default(60_000)
      .describe("Longest delay between two attempts, Retry-After included"),
  })
  .describe("Retries of a failing node; each attempt is recorded on the node's run");

/** What the engine does when a node's executor fails, times out or a template cannot be resolved. */
export const errorPolicySchema = {
  on_error: z
    .enum(["fail", "continue", "branch"])
    .optional()
    .describe(
      "fail (default) ends the run; continue goes on with default_output plus `error`; branch follows the " +
        "node's edges with source_handle `error` (its other edges are skipped), its outputs being `error`",
    ),
  retry: retryPolicySchema.optional(),
  default_output: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Outputs used when the node fails under on_error: continue"),
  timeout_ms: z.number().int().min(1).max(3_600_000).optional().describe("Engine-enforced time limit"),
};

/** The longest an approval may wait before its `on_timeout` decides it: 30 days. */
export const MAX_APPROVAL_TIMEOUT_S = 30 * 24 * 3600;

/**
 * A person approves each execution of the node first: the run pauses (status `waiting`) with the
 * node's resolved request pending until someone approves (optionally with an edited request) or
 * rejects it (the node then fails with `approval_rejected`, under its `on_error`).
 */
export const approvalPolicySchema = {
  requires_approval: z
    .boolean()
    .optional()
    .describe(
      "The run pauses here (status waiting) until POST /api/runs/{id}/approvals approves or rejects the node's resolved request",
    ),
  approval_timeout_s: z
    .number()
    .int()
    .min(1)
    .max(MAX_APPROVAL_TIMEOUT_S)
    .optional()
    .describe("Seconds an approval may wait; then on_timeout decides it. None: it waits until decided"),
  on_timeout: z
    .enum(["reject", "fail"])
    .optional()
    .describe(
      "What a timed-out approval does: reject (default; as a person's reject, under on_error) or fail (the run fails with approval_timed_out)",
    ),
};

const nodeBase = { id: nodeIdSchema, position: positionSchema };

export const startNodeSchema = z.strictObject({
  ...nodeBase,
  type: z.literal("start"),
  data: startDataSchema,
});
export const endNodeSchema = z.strictObject({ ...nodeBase, type: z.literal("end"), data: endDataSchema });
export const conditionNodeSchema = z.strictObject({
  ...nodeBase,
  type: z.literal("condition"),
  data: conditionDataSchema,
});
export const llmNodeSchema = z.strictObject({
  ...nodeBase,
  ...errorPolicySchema,
  type: z.literal("llm"),
  data: llmDataSchema,
});
export const codeNodeSchema = z.strictObject({
  ...nodeBase,
  ...errorPolicySchema,
  type: z.literal("code"),
  data: codeDataSchema,
});
export const httpNodeSchema = z.strictObject({
  ...nodeBase,
  ...errorPolicySchema,
  ...approvalPolicySchema,
  type: z.literal("http"),
  data: httpDataSchema,
});
export const toolNodeSchema = z.strictObject({
  ...nodeBase,
  ...errorPolicySchema,
  ...approvalPolicySchema,
  type: z.literal("tool"),
  data: toolDataSchema,
});

export const workflowNodeSchema = z.discriminatedUnion("type", [
  startNodeSchema,
  endNodeSchema,
  llmNodeSchema,
  codeNodeSchema,
  httpNodeSchema,
  conditionNodeSchema,
  toolNodeSchema,
]);

export const workflowEdgeSchema = z.strictObject({
  id: z.string().min(1).max(128),
  source: z.string().min(1).max(64),
  target: z.string().min(1).max(64),
  source_handle: z
    .string()
    .max(64)
    .nullish()
    .describe(
      "Out of a condition node: the case id or `else`; out of a node with on_error: branch, `error` for its error " +
        "branch; absent otherwise",
    ),
});

/** The most nodes a workflow may have: the studio's editor stays usable at this size (bench/studio.ts). */
export const MAX_WORKFLOW_NODES = 1000;

/** The graph of `POST /api/workflows`. Structure (one start, no cycles, …) is checked by `validateGraph`. */
export const workflowGraphSchema = z.strictObject({
  nodes: z.array(workflowNodeSchema).min(1).max(MAX_WORKFLOW_NODES),
  edges: z.array(workflowEdgeSchema).max(MAX_WORKFLOW_NODES * 4),
});

export type ValueType = z.infer<typeof valueTypeSchema>;
export type StartInput = z.infer<typeof startInputSchema>;
export type StartData = z.infer<typeof startDataSchema>;
export type EndData = z.infer<typeof endDataSchema>;
export type LlmData = z.infer<typeof llmDataSchema>;
export type CodeData = z.infer<typeof codeDataSchema>;
export type HttpAuth = z.infer<typeof httpAuthSchema>;
export type HttpData = z.infer<typeof httpDataSchema>;
export type ConditionOperator = z.infer<typeof conditionOperatorSchema>;
export type Condition = z.infer<typeof conditionSchema>;
export type ConditionCase = z.infer<typeof conditionCaseSchema>;
export type ConditionData = z.infer<typeof conditionDataSchema>;
export type ToolData = z.infer<typeof toolDataSchema>;
export type WorkflowNode = z.infer<typeof workflowNodeSchema>;
export type WorkflowEdge = z.infer<typeof workflowEdgeSchema>;
export type WorkflowGraph = z.infer<typeof workflowGraphSchema>;
/** A graph as clients may send it: fields with defaults (`inputs`, `required`, `logic`, `args`…) optional. */
export type WorkflowGraphInput = z.input<typeof workflowGraphSchema>;
export type NodeType = WorkflowNode["type"];
/** The node of one type, e.g. `NodeOfType<"llm">`. */
export type NodeOfType<T extends NodeType> = Extract<WorkflowNode, { type: T }>;
/** The four node types whose work the caller supplies as executors. */
export type ExecutedNodeType = "llm" | "code" | "http" | "tool";

/** The seven node types, in the order the editor lists them. */
export const NODE_TYPES: readonly NodeType[] = ["start", "end", "llm", "code", "http", "condition", "tool"];

/** The case id an edge out of a condition node uses when no declared case matched. */
export const ELSE_HANDLE = "else";

/** The handle of the edges a node with `on_error: "branch"` follows when it failed. */
export const ERROR_HANDLE = "error";

export type RetryPolicy = z.infer<typeof retryPolicySchema>;

/** The node types that can require a person's approval before they run. */
export type ApprovableNodeType = "http" | "tool";
