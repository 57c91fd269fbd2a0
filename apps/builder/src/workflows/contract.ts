import { listQuerySchema, patchBody } from "@app/http";
import { workflowGraphSchema } from "@app/workflow";
import { z } from "@hono/zod-openapi";
import { publishingFields, versionFields, versionSelector } from "../versions/contract.ts";
import { evaluationGateSchema, gateResultSchema } from "../versions/evaluation-gate.ts";

export const graphSchema = workflowGraphSchema.openapi("WorkflowGraph", {
  description:
    "Nodes (`start`, `end`, `llm`, `code`, `http`, `condition`, `tool`) and the edges between them",
});

const errorWorkflowIdSchema = z.string().min(1).max(64).nullable().openapi({
  description:
    "A workflow of this workspace (not this one) started with `{ run_id, workflow_id, error, failed_node }` when a run of this one fails; null for none",
});

export const createWorkflowBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
    mcp_exposed: z.boolean().default(false).openapi({
      description: "Served as a tool of the workspace's MCP endpoint, /api/mcp (see docs/mcp.md)",
    }),
    evaluation_gate: evaluationGateSchema.nullable().default(null),
    error_workflow_id: errorWorkflowIdSchema.optional(),
  })
  .strict()
  .openapi("CreateWorkflowRequest");

export const updateWorkflowBody = patchBody(
  z
    .object({
      name: z.string().trim().min(1).max(200),
      description: z.string().max(5000),
      graph: graphSchema,
      mcp_exposed: z.boolean(),
      evaluation_gate: evaluationGateSchema.nullable(),
      error_workflow_id: errorWorkflowIdSchema,
    })
    .partial(),
).openapi("UpdateWorkflowRequest");

export const workflowSchema = z
  .object({
    id: z.string().openapi({ example: "wf_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    name: z.string(),
    description: z.string(),
    graph: graphSchema,
    trigger_url: z
      .string()
      .openapi({ description: "POST a JSON body here to start a run (the URL is the secret)" }),
    mcp_exposed: z.boolean(),
    evaluation_gate: evaluationGateSchema.nullable(),
    error_workflow_id: z.string().nullable().openapi({
      description:
        "A workflow of this workspace (not this one) started with `{ run_id, workflow_id, error, failed_node }` when a run of this one fails; null for none",
    }),
    ...publishingFields,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Workflow");

export const workflowVersionSchema = z
  .object({
    workflow_id: z.string(),
    ...versionFields,
    name: z.string(),
    description: z.string(),
    graph: graphSchema,
    evaluation_gate: gateResultSchema.nullable().openapi({
      description: "The gate's evaluation when this version was published, or that force skipped it",
    }),
  })
  .openapi("WorkflowVersion", { description: "An immutable published version of a workflow" });

/** The portable document of export and import: `import(export(w))` recreates `w`. */
export const workflowExportSchema = z
  .object({
    format: z.literal("builder.workflow"),
    version: z.literal(1),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
  })
  .strict()
  .openapi("WorkflowExport");

export const graphIssueSchema = z
  .object({
    path: z.string(),
    message: z.string(),
    code: z.string().optional(),
    node_id: z.string().optional(),
    edge_id: z.string().optional(),
  })
  .openapi("GraphIssue");

export const validationResultSchema = z
  .object({ valid: z.boolean(), issues: z.array(graphIssueSchema) })
  .openapi("GraphValidation");

export type CreateWorkflowInput = z.infer<typeof createWorkflowBody>;
export type UpdateWorkflowInput = z.infer<typeof updateWorkflowBody>;

export const validateGraphBody = z.object({ graph: z.unknown() }).strict();

export const nodeRunSchema = z.object({
  node_id: z.string(),
  node_type: z.string(),
  status: z.enum(["running", "waiting", "succeeded", "failed", "skipped"]).openapi({
    description: "`waiting`: a node that requires approval, paused at; `inputs` is its request",
  }),
  step: z.number().nullable(),
  inputs: z.unknown(),
  outputs: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  logs: z
    .object({
      stdout: z.string(),
      stderr: z.string(),
      truncated: z.boolean().openapi({
        description:
          "Cut: by the sandbox's output limit, or here, each stream to 16,384 characters (start and end kept)",
      }),
    })
    .nullable()
    .openapi({ description: "What a Code node's program printed, failed runs too; null for other nodes" }),
  attempts: z
    .array(
      z.object({
        attempt: z.number().int(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
        started_at: z.string(),
        elapsed_ms: z.number(),
      }),
    )
    .nullable()
    .openapi({
      description:
        "Each attempt with its error (null for the one that succeeded), for a node with a `retry`; null otherwise",
    }),
  tokens: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  elapsed_ms: z.number().nullable(),
});

export const RUN_STATUSES = ["running", "waiting", "succeeded", "failed", "cancelled"] as const;
export const RUN_TRIGGERS = [
  "api",
  "hook",
  "tool",
  "mcp",
  "app",
  "schedule",
  "error_workflow",
  "evaluation",
] as const;

/** A node a waiting run waits at: its request awaits a person's decision. */
export const pendingApprovalSchema = z
  .object({
    node_id: z.string(),
    node_type: z.string(),
    title: z.string().nullable(),
    input: z.unknown().openapi({
      description: "The node's resolved request (its data with templates resolved): what approving sends",
    }),
    requested_at: z.string(),
    expires_at: z
      .string()
      .nullable()
      .openapi({ description: "When `on_timeout` decides it (`approval_timeout_s`); null: it waits" }),
  })
  .openapi("PendingApproval");

/** `?limit&cursor&status` of a workflow's runs. */
export const listRunsQuery = listQuerySchema.extend({
  status: z
    .enum(RUN_STATUSES)
    .optional()
    .openapi({
      param: { name: "status", in: "query" },
      description: "Only runs in this state; paging (`cursor`) keeps the filter",
    }),
});

export const runSchema = z
  .object({
    id: z.string().openapi({ example: "run_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    workflow_id: z.string(),
    status: z.enum(RUN_STATUSES),
    trigger: z.enum(RUN_TRIGGERS),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The workflow version it ran; null for the draft" }),
    app_id: z.string().nullable().openapi({ description: "The app whose end user started it" }),
    end_user_id: z.string().nullable(),
    replay_of: z
      .string()
      .nullable()
      .openapi({ description: "The run this one replays (POST /api/runs/{id}/replay); null otherwise" }),
    schedule_id: z
      .string()
      .nullable()
      .openapi({ description: 'The schedule that fired the run (`trigger: "schedule"`), else null' }),
    scheduled_for: z.string().nullable().openapi({
      description: "The schedule's tick this run fired for (ISO 8601, UTC), else null",
      example: "2026-03-29T01:00:00.000Z",
    }),
    inputs: z.record(z.string(), z.unknown()),
    outputs: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string(), node_id: z.string().optional() }).nullable(),
    steps: z.number(),
    usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    elapsed_ms: z.number().nullable(),
    pending: z.array(pendingApprovalSchema).optional().openapi({
      description:
        "The nodes a `waiting` run waits at for approval (POST /api/runs/{id}/approvals); on GET /api/runs/{id} and blocking answers",
    }),
    nodes: z.array(nodeRunSchema).optional(),
  })
  .openapi("WorkflowRun");

export const approvalDecisionBody = z
  .strictObject({
    node_id: z.string().min(1).max(64),
    decision: z.enum(["approve", "reject"]),
    input: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "With approve: the request to send instead of the proposed one (a whole request of the node's type, as in `pending[].input`)",
    }),
  })
  .openapi("ApprovalDecisionRequest");

export const approvalInboxItemSchema = z
  .object({
    id: z.string().openapi({ example: "apr_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    run_id: z.string(),
    workflow_id: z.string(),
    workflow_name: z.string(),
    node_id: z.string(),
    node_type: z.string(),
    title: z.string().nullable().openapi({ description: "The node's title; null when it has none" }),
    input: z.unknown(),
    requested_at: z.string(),
    expires_at: z.string().nullable(),
    on_timeout: z.enum(["reject", "fail"]).nullable(),
  })
  .openapi("PendingApprovalItem");

export const replayRunBody = z
  .strictObject({
    from_node: z.string().min(1).max(64).optional().openapi({
      description:
        "The node to run again, with everything downstream of it; the others keep their recorded outcomes. Default: the node the run failed at",
    }),
  })
  .openapi("ReplayRunRequest");

export const runWorkflowBody = z
  .object({ inputs: z.record(z.string(), z.unknown()).default({}), version: versionSelector })
  .strict()
  .openapi("RunWorkflowRequest");

export const toolSchema = z.object({
  name: z.string(),
  description: z.string(),
  outputs: z.array(z.string()),
});

/** The inbound trigger's path: the URL is the secret. */
export const hookTokenParam = z.object({
  token: z
    .string()
    .max(200)
    .openapi({ param: { name: "token", in: "path" } }),
});

export const runStartedSchema = z.object({ run_id: z.string(), status: z.literal("running") });
