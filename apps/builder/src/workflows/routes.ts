import {
  type ApiError,
  createRouter,
  defineErrors,
  errorResponses,
  eventStream,
  idParam,
  listOf,
  listQuerySchema,
  toPage,
} from "@app/http";
import {
  type GraphIssue,
  resolveStartInputs,
  validateGraph,
  type WorkflowGraph,
  WorkflowGraphError,
} from "@app/workflow";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireCredits } from "../billing/meter.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { checkGraphReferences } from "./check-graph-references.ts";
import {
  createWorkflowBody,
  graphIssueSchema,
  graphSchema,
  updateWorkflowBody,
  validationResultSchema,
  workflowExportSchema,
  workflowSchema,
} from "./contract.ts";
import { finishedRunJson, runJson } from "./runs/run-json.ts";
import { findNodeRuns, findRun, listRuns, requestCancel } from "./runs/run-store.ts";
import type { RunStreamEvent, WorkflowRunner } from "./runs/workflow-runner.ts";
import type { WorkflowRow } from "./workflows.ts";
import {
  createWorkflow,
  deleteWorkflow,
  findWorkflow,
  listWorkflows,
  rotateTrigger,
  toWorkflowJson,
  updateWorkflow,
} from "./workflows.ts";

export const WorkflowErrors = defineErrors({
  WORKFLOW_NOT_FOUND: { status: 404, message: "No workflow with this id." },
  RUN_NOT_FOUND: { status: 404, message: "No run with this id." },
  INVALID_GRAPH: { status: 422, message: "The workflow graph is invalid." },
  INVALID_INPUTS: { status: 422, message: "The run's inputs do not match the start node." },
  RUN_NOT_RUNNING: { status: 409, message: "The run has already finished." },
});

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

const nodeRunSchema = z.object({
  node_id: z.string(),
  node_type: z.string(),
  status: z.enum(["running", "succeeded", "failed", "skipped"]),
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
  tokens: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  elapsed_ms: z.number().nullable(),
});

const RUN_STATUSES = ["running", "succeeded", "failed", "cancelled"] as const;

const listRunsQuery = listQuerySchema.extend({
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
    trigger: z.enum(["api", "hook", "tool", "mcp"]),
    inputs: z.record(z.string(), z.unknown()),
    outputs: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string(), node_id: z.string().optional() }).nullable(),
    steps: z.number(),
    usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    elapsed_ms: z.number().nullable(),
    nodes: z.array(nodeRunSchema).optional(),
  })
  .openapi("WorkflowRun");

const runBody = z
  .object({ inputs: z.record(z.string(), z.unknown()).default({}) })
  .openapi("RunWorkflowRequest");

const toolSchema = z.object({ name: z.string(), description: z.string(), outputs: z.array(z.string()) });

const routes = {
  list: createRoute({
    method: "get",
    path: "/workflows",
    tags: ["workflows"],
    summary: "List the caller's workflows, newest first",
    request: { query: listQuerySchema },
    responses: {
      200: { description: "A page of workflows", content: json(listOf(workflowSchema)) },
      ...errorResponses(401, 422),
    },
  }),
  create: createRoute({
    method: "post",
    path: "/workflows",
    tags: ["workflows"],
    summary: "Create a workflow",
    description:
      "The graph is validated: one start, at least one end, every node reachable, no cycles, edge ends and condition handles that exist, and `{{node.field}}` references only to upstream nodes' declared outputs. Problems answer 422 with each node or edge id in `details`.",
    request: { body: { required: true, content: json(createWorkflowBody) } },
    responses: {
      201: { description: "Created", content: json(workflowSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  validate: createRoute({
    method: "post",
    path: "/workflows/validate",
    tags: ["workflows"],
    summary: "Check a graph without saving it (for editors)",
    request: { body: { required: true, content: json(z.object({ graph: z.unknown() })) } },
    responses: {
      200: { description: "The problems found", content: json(validationResultSchema) },
      ...errorResponses(400, 401),
    },
  }),
  tools: createRoute({
    method: "get",
    path: "/workflows/tools",
    tags: ["workflows"],
    summary: "The tools Tool nodes can call, with their output fields",
    responses: {
      200: { description: "Tools", content: json(z.object({ data: z.array(toolSchema) })) },
      ...errorResponses(401),
    },
  }),
  importWorkflow: createRoute({
    method: "post",
    path: "/workflows/import",
    tags: ["workflows"],
    summary: "Create a workflow from an exported document",
    request: { body: { required: true, content: json(workflowExportSchema) } },
    responses: {
      201: { description: "Imported", content: json(workflowSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/workflows/{id}",
    tags: ["workflows"],
    summary: "Get a workflow",
    request: { params: idParam },
    responses: {
      200: { description: "The workflow", content: json(workflowSchema) },
      ...errorResponses(401, 404),
    },
  }),
  update: createRoute({
    method: "patch",
    path: "/workflows/{id}",
    tags: ["workflows"],
    summary: "Change a workflow's name, description or graph",
    request: { params: idParam, body: { required: true, content: json(updateWorkflowBody) } },
    responses: {
      200: { description: "Updated", content: json(workflowSchema) },
      ...errorResponses(400, 401, 404, 422),
    },
  }),
  remove: createRoute({
    method: "delete",
    path: "/workflows/{id}",
    tags: ["workflows"],
    summary: "Delete a workflow and its runs",
    request: { params: idParam },
    responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
  }),
  exportWorkflow: createRoute({
    method: "get",
    path: "/workflows/{id}/export",
    tags: ["workflows"],
    summary: "Export a workflow as a portable JSON document",
    request: { params: idParam },
    responses: {
      200: { description: "The document", content: json(workflowExportSchema) },
      ...errorResponses(401, 404),
    },
  }),
  rotateTrigger: createRoute({
    method: "post",
    path: "/workflows/{id}/trigger/rotate",
    tags: ["workflows"],
    summary: "Replace the inbound trigger URL (the old one stops working)",
    request: { params: idParam },
    responses: {
      200: { description: "The workflow with its new trigger_url", content: json(workflowSchema) },
      ...errorResponses(401, 404),
    },
  }),
  run: createRoute({
    method: "post",
    path: "/workflows/{id}/runs",
    tags: ["workflows"],
    summary: "Run a workflow (blocking, or streamed as Server-Sent Events)",
    description:
      "With `Accept: text/event-stream` the answer streams `run_started`, `node_started`, `node_finished` (outputs, elapsed ms, tokens, a Code node's logs), `node_skipped` and `run_finished`. Otherwise it answers the finished run.",
    request: { params: idParam, body: { required: false, content: json(runBody) } },
    responses: {
      200: {
        description: "The finished run, or an event stream",
        content: { ...json(runSchema), "text/event-stream": { schema: z.string() } },
      },
      // 402: out of credits (with BILLING_ENFORCE=1), before any node runs.
      ...errorResponses(400, 401, 402, 404, 422),
    },
  }),
  listRuns: createRoute({
    method: "get",
    path: "/workflows/{id}/runs",
    tags: ["workflows"],
    summary: "A workflow's runs, newest first, optionally only those in one status",
    request: { params: idParam, query: listRunsQuery },
    responses: {
      200: { description: "A page of runs", content: json(listOf(runSchema)) },
      ...errorResponses(401, 404, 422),
    },
  }),
  getRun: createRoute({
    method: "get",
    path: "/runs/{id}",
    tags: ["workflows"],
    summary: "A run with every node's inputs, outputs, status, timings, tokens and error",
    request: { params: idParam },
    responses: { 200: { description: "The run", content: json(runSchema) }, ...errorResponses(401, 404) },
  }),
  cancelRun: createRoute({
    method: "post",
    path: "/runs/{id}/cancel",
    tags: ["workflows"],
    summary: "Cancel a running run",
    request: { params: idParam },
    responses: {
      202: { description: "Cancellation requested", content: json(runSchema) },
      ...errorResponses(401, 404, 409),
    },
  }),
};

export function graphError(issues: readonly GraphIssue[]): ApiError {
  const first = issues[0];
  return WorkflowErrors.INVALID_GRAPH({
    message: `The workflow graph is invalid: ${first?.message ?? "unknown problem"}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
    ...(first ? { param: `graph.${first.path}` } : {}),
    details: issues.map((issue) => ({
      path: `graph.${issue.path}`,
      message: issue.message,
      code: issue.code,
      ...(issue.node_id ? { node_id: issue.node_id } : {}),
      ...(issue.edge_id ? { edge_id: issue.edge_id } : {}),
    })),
  });
}

/** Workflows, their runs and the inbound trigger's management; mounted at /api. */
export function workflowRoutes(deps: Deps, runner: WorkflowRunner) {
  const router = createRouter<AppEnv>();
  const urls = { publicUrl: deps.config.publicUrl, secretKey: deps.config.secretKey };
  const checkGraph = async (c: Context<AppEnv>, graph: WorkflowGraph) => {
    const issues = validateGraph(graph, { tools: runner.toolOutputs() });
    if (issues.length > 0) throw graphError(issues);
    await checkGraphReferences(deps, c.get("principal").workspaceId, graph);
  };
  const ownWorkflow = async (c: Context<AppEnv>, id: string) => {
    const row = await findWorkflow(deps.db, c.get("principal").workspaceId, id);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return row;
  };

  router.openapi(routes.list, async (c) => {
    const query = c.req.valid("query");
    const rows = await listWorkflows(deps.db, c.get("principal").workspaceId, query);
    return c.json(
      toPage(rows, query.limit, (row) => toWorkflowJson(row, urls)),
      200,
    );
  });
  router.openapi(routes.create, async (c) => {
    const body = c.req.valid("json");
    await checkGraph(c, body.graph);
    const row = await createWorkflow(deps, c.get("principal").workspaceId, body);
    if (row.mcpExposed) deps.mcpExposure?.changed(row.workspaceId);
    return c.json(toWorkflowJson(row, urls), 201);
  });
  router.openapi(routes.validate, async (c) => {
    const parsed = graphSchema.safeParse(c.req.valid("json").graph);
    const issues = parsed.success
      ? validateGraph(parsed.data, { tools: runner.toolOutputs() })
      : parsed.error.issues.map((issue) => ({
          path: issue.path.join("."),
          message: issue.message,
          code: "invalid_schema",
        }));
    return c.json(
      { valid: issues.length === 0, issues: issues.map((issue) => graphIssueSchema.parse(issue)) },
      200,
    );
  });
  router.openapi(routes.tools, (c) => c.json({ data: runnerTools(runner) }, 200));
  router.openapi(routes.importWorkflow, async (c) => {
    const body = c.req.valid("json");
    await checkGraph(c, body.graph);
    const row = await createWorkflow(deps, c.get("principal").workspaceId, body);
    return c.json(toWorkflowJson(row, urls), 201);
  });
  router.openapi(routes.get, async (c) =>
    c.json(toWorkflowJson(await ownWorkflow(c, c.req.valid("param").id), urls), 200),
  );
  router.openapi(routes.update, async (c) => {
    const body = c.req.valid("json");
    if (body.graph) await checkGraph(c, body.graph);
    const row = await updateWorkflow(deps, c.get("principal").workspaceId, c.req.valid("param").id, body);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    if (row.mcpExposed || body.mcp_exposed !== undefined) deps.mcpExposure?.changed(row.workspaceId);
    return c.json(toWorkflowJson(row, urls), 200);
  });
  router.openapi(routes.remove, async (c) => {
    const isDeleted = await deleteWorkflow(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    deps.mcpExposure?.changed(c.get("principal").workspaceId);
    return c.body(null, 204);
  });
  router.openapi(routes.exportWorkflow, async (c) => {
    const row = await ownWorkflow(c, c.req.valid("param").id);
    c.header("Content-Disposition", `attachment; filename="${row.id}.workflow.json"`);
    return c.json(
      {
        format: "builder.workflow" as const,
        version: 1 as const,
        name: row.name,
        description: row.description,
        graph: row.graph,
      },
      200,
    );
  });
  router.openapi(routes.rotateTrigger, async (c) => {
    const row = await rotateTrigger(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return c.json(toWorkflowJson(row, urls), 200);
  });
  router.openapi(routes.run, async (c) => {
    const workflow = await ownWorkflow(c, c.req.valid("param").id);
    // The body is optional: a workflow without inputs can be run with an empty POST.
    const inputs = (c.req.valid("json") as { inputs?: Record<string, unknown> } | undefined)?.inputs ?? {};
    const workspaceId = c.get("principal").workspaceId;
    checkRunnable(runner, workflow, inputs);
    await requireCredits(deps, workspaceId, { work: "This workflow run" });
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      const requestId = c.get("requestId");
      return eventStream(
        c,
        async (sse) => {
          // The run is a record of its own: a client that goes away does not cancel it.
          await runner.run({
            workspaceId,
            workflow,
            inputs,
            trigger: "api",
            persistAtStart: true,
            onEvent: (event: RunStreamEvent) => void sse.send(event.event, event.data),
          });
        },
        (error) => deps.logger.error({ request_id: requestId, err: error }, "workflow run stream failed"),
      );
    }
    const result = await runner.run({ workspaceId, workflow, inputs, trigger: "api" });
    return c.json(finishedRunJson(result, { workflowId: workflow.id, trigger: "api", inputs }), 200);
  });
  router.openapi(routes.listRuns, async (c) => {
    const workflow = await ownWorkflow(c, c.req.valid("param").id);
    const query = c.req.valid("query");
    const rows = await listRuns(deps.db, workflow.workspaceId, workflow.id, query);
    return c.json(
      toPage(rows, query.limit, (row) => runJson(row, undefined)),
      200,
    );
  });
  router.openapi(routes.getRun, async (c) => {
    const row = await findRun(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw WorkflowErrors.RUN_NOT_FOUND();
    return c.json(runJson(row, await findNodeRuns(deps.db, row.id)), 200);
  });
  router.openapi(routes.cancelRun, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const existing = await findRun(deps.db, workspaceId, c.req.valid("param").id);
    if (!existing) throw WorkflowErrors.RUN_NOT_FOUND();
    if (existing.status !== "running") throw WorkflowErrors.RUN_NOT_RUNNING();
    const row = (await requestCancel(deps.db, workspaceId, existing.id)) ?? existing;
    runner.cancelLocal(existing.id);
    return c.json(runJson(row, undefined), 202);
  });
  return router;
}

/** Rejects before a run record exists when the graph cannot run now or the inputs do not fit. */
export function checkRunnable(
  runner: WorkflowRunner,
  workflow: WorkflowRow,
  inputs: Record<string, unknown>,
): void {
  let start: { inputs: Parameters<typeof resolveStartInputs>[0]["inputs"] };
  try {
    start = runner.compile(workflow).start.data;
  } catch (error) {
    if (error instanceof WorkflowGraphError) throw graphError(error.issues);
    throw error;
  }
  const resolved = resolveStartInputs(start, inputs);
  if (!resolved.ok) {
    throw WorkflowErrors.INVALID_INPUTS({
      message: `The run's inputs do not match the start node: ${resolved.issues[0]?.message ?? ""}`,
      ...(resolved.issues[0] ? { param: resolved.issues[0].path } : {}),
      details: resolved.issues.map((issue) => ({
        path: issue.path,
        message: issue.message,
        code: issue.code,
      })),
    });
  }
}

function runnerTools(runner: WorkflowRunner) {
  return runner.tools.list().map((tool) => ({ ...tool, outputs: [...tool.outputs] }));
}
