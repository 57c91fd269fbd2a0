import { patchBody } from "@app/http";
import { workflowGraphSchema } from "@app/workflow";
import { z } from "@hono/zod-openapi";

export const graphSchema = workflowGraphSchema.openapi("WorkflowGraph", {
  description:
    "Nodes (`start`, `end`, `llm`, `code`, `http`, `condition`, `tool`) and the edges between them",
});

export const createWorkflowBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
    mcp_exposed: z.boolean().default(false).openapi({
      description: "Served as a tool of the workspace's MCP endpoint, /api/mcp (see docs/mcp.md)",
    }),
  })
  .openapi("CreateWorkflowRequest");

export const updateWorkflowBody = patchBody(
  z
    .object({
      name: z.string().trim().min(1).max(200),
      description: z.string().max(5000),
      graph: graphSchema,
      mcp_exposed: z.boolean(),
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
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Workflow");

/** The portable document of export and import: `import(export(w))` recreates `w`. */
export const workflowExportSchema = z
  .object({
    format: z.literal("builder.workflow"),
    version: z.literal(1),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
  })
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
