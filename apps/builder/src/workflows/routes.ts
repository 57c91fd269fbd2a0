import {
  CommonErrors,
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  searchableListQuerySchema,
  toPage,
} from "@app/http";
import { validateGraph, type WorkflowGraph } from "@app/workflow";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireCredits } from "../billing/meter.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { registerWorkflowPortabilityRoutes } from "../portability/routes.ts";
import type { VersionSelector } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { etagOf, expectedRevisions, ifMatchHeaders, refusedWrite } from "../versions/revisions.ts";
import { answerRun } from "./answer-run.ts";
import { checkGraphReferences } from "./check-graph-references.ts";
import { checkRunnable } from "./check-runnable.ts";
import {
  approvalDecisionBody,
  approvalInboxItemSchema,
  createWorkflowBody,
  graphIssueSchema,
  graphSchema,
  listRunsQuery,
  replayRunBody,
  runSchema,
  runWorkflowBody,
  toolSchema,
  updateWorkflowBody,
  validateGraphBody,
  validationResultSchema,
  workflowSchema,
} from "./contract.ts";
import { createWorkflow } from "./create-workflow.ts";
import { deleteWorkflow } from "./delete-workflow.ts";
import { graphError, WorkflowErrors } from "./errors.ts";
import { findWorkflow } from "./find-workflow.ts";
import { listWorkflows } from "./list-workflows.ts";
import { rotateTrigger } from "./rotate-trigger.ts";
import {
  cancelWaitingRun,
  decideApproval,
  listPendingApprovals,
  pendingApprovalsOf,
} from "./runs/approval-store.ts";
import { planReplay } from "./runs/replay-run.ts";
import { finishedRunJson, runJson } from "./runs/run-json.ts";
import { findNodeRuns, findRun, listRuns, requestCancel } from "./runs/run-store.ts";
import type { WorkflowRunner } from "./runs/workflow-runner.ts";
import { updateWorkflow } from "./update-workflow.ts";
import { registerWorkflowVersionRoutes } from "./version-routes.ts";
import { toWorkflowJson } from "./workflow-json.ts";
import { workflowToRun } from "./workflow-versions.ts";

const routes = {
  list: createRoute({
    method: "get",
    path: "/workflows",
    tags: ["workflows"],
    summary: "List the caller's workflows, newest first",
    request: { query: searchableListQuerySchema },
    responses: {
      200: { description: "A page of workflows", content: jsonContent(listOf(workflowSchema)) },
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
    request: { body: { required: true, content: jsonContent(createWorkflowBody) } },
    responses: {
      201: { description: "Created", content: jsonContent(workflowSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  validate: createRoute({
    method: "post",
    path: "/workflows/validate",
    tags: ["workflows"],
    summary: "Check a graph without saving it (for editors)",
    request: { body: { required: true, content: jsonContent(validateGraphBody) } },
    responses: {
      200: { description: "The problems found", content: jsonContent(validationResultSchema) },
      ...errorResponses(400, 401),
    },
  }),
  tools: createRoute({
    method: "get",
    path: "/workflows/tools",
    tags: ["workflows"],
    summary: "The tools Tool nodes can call, with their output fields",
    responses: {
      200: { description: "Tools", content: jsonContent(z.object({ data: z.array(toolSchema) })) },
      ...errorResponses(401),
    },
  }),
  get: createRoute({
    method: "get",
    path: "/workflows/{id}",
    tags: ["workflows"],
    summary: "Get a workflow",
    request: { params: idParam },
    responses: {
      200: { description: "The workflow", content: jsonContent(workflowSchema) },
      ...errorResponses(401, 404),
    },
  }),
  update: createRoute({
    method: "patch",
    path: "/workflows/{id}",
    tags: ["workflows"],
    summary: "Change a workflow's name, description or graph",
    request: {
      params: idParam,
      headers: ifMatchHeaders,
      body: { required: true, content: jsonContent(updateWorkflowBody) },
    },
    responses: {
      200: { description: "Updated", content: jsonContent(workflowSchema) },
      ...errorResponses(400, 401, 404, 412, 422),
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
  rotateTrigger: createRoute({
    method: "post",
    path: "/workflows/{id}/trigger/rotate",
    tags: ["workflows"],
    summary: "Replace the inbound trigger URL (the old one stops working)",
    request: { params: idParam },
    responses: {
      200: { description: "The workflow with its new trigger_url", content: jsonContent(workflowSchema) },
      ...errorResponses(401, 404),
    },
  }),
  run: createRoute({
    method: "post",
    path: "/workflows/{id}/runs",
    tags: ["workflows"],
    summary: "Run a workflow (blocking, or streamed as Server-Sent Events)",
    description:
      "With `Accept: text/event-stream` the answer streams `run_started`, `node_started`, `node_finished` (outputs, elapsed ms, tokens, a Code node's logs), `node_skipped`, `node_waiting` (a node that requires approval) and `run_finished`. Otherwise it answers the finished run, or the run `waiting` with its `pending` approvals when it paused at a node that requires one.",
    request: { params: idParam, body: { required: false, content: jsonContent(runWorkflowBody) } },
    responses: {
      200: {
        description: "The finished run, or an event stream",
        content: { ...jsonContent(runSchema), "text/event-stream": { schema: z.string() } },
      },
      // 402: out of credits (with BILLING_ENFORCE=1), before any node runs.
      // 404: no such workflow, or no such published `version`.
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
      200: { description: "A page of runs", content: jsonContent(listOf(runSchema)) },
      ...errorResponses(401, 404, 422),
    },
  }),
  getRun: createRoute({
    method: "get",
    path: "/runs/{id}",
    tags: ["workflows"],
    summary: "A run with every node's inputs, outputs, status, timings, tokens and error",
    request: { params: idParam },
    responses: {
      200: { description: "The run", content: jsonContent(runSchema) },
      ...errorResponses(401, 404),
    },
  }),
  replayRun: createRoute({
    method: "post",
    path: "/runs/{id}/replay",
    tags: ["workflows"],
    summary: "Run a finished run again from one node, keeping the recorded outputs of the nodes before it",
    description:
      "A new run with the same inputs, version and graph (`replay_of` names the original). The nodes that are neither " +
      "`from_node` nor downstream of it are not executed: their recorded outputs feed the rest. Answers the finished run.",
    request: { params: idParam, body: { content: jsonContent(replayRunBody), required: false } },
    responses: {
      201: { description: "The replay, finished", content: jsonContent(runSchema) },
      ...errorResponses(401, 402, 404, 409, 422),
    },
  }),
  decideApproval: createRoute({
    method: "post",
    path: "/runs/{id}/approvals",
    tags: ["workflows"],
    summary: "Approve or reject a node a waiting run waits at; the run goes on",
    description:
      "`approve` runs the node, with `input` instead of its proposed request when given; `reject` fails it with " +
      "`approval_rejected` under its `on_error` (fail ends the run; continue and branch go on with " +
      '`{ error: { code: "approval_rejected", message } }`). No node that completed runs again. Answers the run once ' +
      "it has ended or paused again (`waiting`, at another node). 409 `run_not_waiting` when the run is not waiting, " +
      "`approval_not_pending` when the node has no pending approval (never asked for, or decided already).",
    request: { params: idParam, body: { required: true, content: jsonContent(approvalDecisionBody) } },
    responses: {
      200: { description: "The run after the decision", content: jsonContent(runSchema) },
      ...errorResponses(401, 404, 409, 422),
    },
  }),
  listApprovals: createRoute({
    method: "get",
    path: "/approvals",
    tags: ["workflows"],
    summary: "The workspace's pending approvals (the inbox), newest first",
    request: { query: listQuerySchema },
    responses: {
      200: {
        description: "A page of pending approvals",
        content: jsonContent(listOf(approvalInboxItemSchema)),
      },
      ...errorResponses(401, 422),
    },
  }),
  cancelRun: createRoute({
    method: "post",
    path: "/runs/{id}/cancel",
    tags: ["workflows"],
    summary: "Cancel a running or waiting run",
    request: { params: idParam },
    responses: {
      202: { description: "Cancellation requested", content: jsonContent(runSchema) },
      ...errorResponses(401, 404, 409),
    },
  }),
};

/** Workflows, their runs and the inbound trigger's management; mounted at /api. */
export function workflowRoutes(deps: Deps, runner: WorkflowRunner) {
  const router = createRouter<AppEnv>();
  const urls = { publicUrl: deps.config.publicUrl, secretKey: deps.config.secretKey };
  const checkGraph = async (c: Context<AppEnv>, graph: WorkflowGraph) => {
    const issues = validateGraph(graph, { tools: runner.toolOutputs() });
    if (issues.length > 0) throw graphError(issues);
    await checkGraphReferences(deps, c.get("principal").workspaceId, graph);
  };
  /** An error workflow must be another workflow of the workspace (a run's failure never starts itself). */
  const checkErrorWorkflow = async (
    c: Context<AppEnv>,
    errorWorkflowId: string | null | undefined,
    selfId: string | undefined,
  ) => {
    if (errorWorkflowId === undefined || errorWorkflowId === null) return;
    if (errorWorkflowId === selfId) {
      throw WorkflowErrors.INVALID_ERROR_WORKFLOW({
        message: "A workflow cannot be its own error workflow.",
        param: "error_workflow_id",
      });
    }
    if (!(await findWorkflow(deps.db, c.get("principal").workspaceId, errorWorkflowId))) {
      throw WorkflowErrors.INVALID_ERROR_WORKFLOW({
        message: `No workflow ${errorWorkflowId} in this workspace.`,
        param: "error_workflow_id",
      });
    }
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
  // A gate's dataset must be the workspace's; the evaluations feature answers through the port.
  const checkGate = async (c: Context<AppEnv>, gate: { dataset_id: string } | null | undefined) => {
    if (!gate || (await deps.publishGate?.hasDataset(c.get("principal").workspaceId, gate.dataset_id)))
      return;
    throw CommonErrors.VALIDATION_FAILED({
      param: "evaluation_gate.dataset_id",
      details: [
        { path: "evaluation_gate.dataset_id", message: `no dataset ${gate.dataset_id} in this workspace` },
      ],
    });
  };
  router.openapi(routes.create, async (c) => {
    const body = c.req.valid("json");
    await checkGraph(c, body.graph);
    await checkGate(c, body.evaluation_gate);
    await checkErrorWorkflow(c, body.error_workflow_id, undefined);
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
  registerWorkflowPortabilityRoutes(router, deps, checkGraph);
  router.openapi(routes.get, async (c) => {
    const row = await ownWorkflow(c, c.req.valid("param").id);
    c.header("ETag", etagOf(row));
    return c.json(toWorkflowJson(row, urls), 200);
  });
  router.openapi(routes.update, async (c) => {
    const body = c.req.valid("json");
    if (body.graph) await checkGraph(c, body.graph);
    await checkGate(c, body.evaluation_gate);
    const workspaceId = c.get("principal").workspaceId;
    const { id } = c.req.valid("param");
    await checkErrorWorkflow(c, body.error_workflow_id, id);
    const row = await updateWorkflow(
      deps,
      workspaceId,
      id,
      body,
      expectedRevisions(c.req.header("if-match")),
    );
    if (!row) {
      throw await refusedWrite(
        () => findWorkflow(deps.db, workspaceId, id),
        WorkflowErrors.WORKFLOW_NOT_FOUND,
      );
    }
    c.header("ETag", etagOf(row));
    if (row.mcpExposed || body.mcp_exposed !== undefined) deps.mcpExposure?.changed(row.workspaceId);
    return c.json(toWorkflowJson(row, urls), 200);
  });
  router.openapi(routes.remove, async (c) => {
    const isDeleted = await deleteWorkflow(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    deps.mcpExposure?.changed(c.get("principal").workspaceId);
    return c.body(null, 204);
  });
  router.openapi(routes.rotateTrigger, async (c) => {
    const row = await rotateTrigger(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return c.json(toWorkflowJson(row, urls), 200);
  });
  router.openapi(routes.run, async (c) => {
    const draft = await ownWorkflow(c, c.req.valid("param").id);
    // The body is optional: a workflow without inputs can be run with an empty POST.
    const body = c.req.valid("json") as
      | { inputs?: Record<string, unknown>; version?: VersionSelector }
      | undefined;
    const inputs = body?.inputs ?? {};
    const chosen = await workflowToRun(deps.db, draft, body?.version);
    if (chosen === "version_not_found") throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    const { workflow, version } = chosen;
    const workspaceId = c.get("principal").workspaceId;
    checkRunnable(runner, workflow, inputs, version);
    await requireCredits(deps, workspaceId, { work: "This workflow run" });
    return answerRun(c, deps, runner, { workspaceId, workflow, inputs, trigger: "api", version }, (result) =>
      finishedRunJson(result, { workflowId: workflow.id, trigger: "api", inputs, version }),
    );
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
    const [nodes, pending] = await Promise.all([
      findNodeRuns(deps.db, row.id),
      row.status === "waiting" ? pendingApprovalsOf(deps.db, [row.id]) : undefined,
    ]);
    return c.json(runJson(row, nodes, pending ? (pending.get(row.id) ?? []) : []), 200);
  });
  router.openapi(routes.decideApproval, async (c) => {
    const { workspaceId, userId } = c.get("principal");
    const body = c.req.valid("json");
    const run = await decideApproval(deps, {
      workspaceId,
      runId: c.req.valid("param").id,
      nodeId: body.node_id,
      decision: body.decision,
      ...(body.input === undefined ? {} : { input: body.input }),
      userId,
    });
    const result = await runner.resume(run, "decision");
    const stored = await findRun(deps.db, workspaceId, run.id);
    if (!stored) throw WorkflowErrors.RUN_NOT_FOUND();
    // A graph that no longer compiles here failed the run instead: answered as stored.
    if (!result) return c.json(runJson(stored, await findNodeRuns(deps.db, stored.id)), 200);
    return c.json(
      finishedRunJson(result, {
        workflowId: stored.workflowId,
        trigger: stored.trigger,
        inputs: stored.inputs,
        version: stored.version,
        appId: stored.appId,
        endUserId: stored.endUserId,
        replayOf: stored.replayOf,
        scheduleId: stored.scheduleId,
        scheduledFor: stored.scheduledFor,
      }),
      200,
    );
  });
  router.openapi(routes.listApprovals, async (c) => {
    const query = c.req.valid("query");
    const rows = await listPendingApprovals(deps.db, c.get("principal").workspaceId, query);
    return c.json(
      toPage(rows, query.limit, (row) => ({
        id: row.id,
        run_id: row.runId,
        workflow_id: row.workflowId,
        workflow_name: row.workflowName,
        node_id: row.nodeId,
        node_type: row.nodeType,
        title: row.title,
        input: row.input ?? null,
        requested_at: row.requestedAt.toISOString(),
        expires_at: row.expiresAt?.toISOString() ?? null,
        on_timeout: row.onTimeout,
      })),
      200,
    );
  });
  router.openapi(routes.replayRun, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const body = c.req.valid("json") as { from_node?: string } | undefined;
    const plan = await planReplay(deps.db, workspaceId, c.req.valid("param").id, body?.from_node);
    await requireCredits(deps, workspaceId, { work: "This workflow run" });
    const { original, workflow, recorded } = plan;
    const version = original.version ?? undefined;
    const result = await runner.run({
      workspaceId,
      workflow,
      version,
      inputs: original.inputs,
      trigger: "api",
      replay: { of: original.id, recorded },
    });
    return c.json(
      finishedRunJson(result, {
        workflowId: workflow.id,
        trigger: "api",
        inputs: original.inputs,
        version,
        replayOf: original.id,
      }),
      201,
    );
  });
  router.openapi(routes.cancelRun, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const existing = await findRun(deps.db, workspaceId, c.req.valid("param").id);
    if (!existing) throw WorkflowErrors.RUN_NOT_FOUND();
    if (existing.status === "waiting") {
      // No process holds a waiting run: it ends here.
      const cancelled = await cancelWaitingRun(deps, existing.id);
      if (cancelled) {
        deps.deliveries?.wake();
        return c.json(runJson(cancelled, undefined), 202);
      }
      throw WorkflowErrors.RUN_NOT_RUNNING();
    }
    if (existing.status !== "running") throw WorkflowErrors.RUN_NOT_RUNNING();
    const row = (await requestCancel(deps.db, workspaceId, existing.id)) ?? existing;
    runner.cancelLocal(existing.id);
    return c.json(runJson(row, undefined), 202);
  });
  registerWorkflowVersionRoutes(router, deps);
  return router;
}

function runnerTools(runner: WorkflowRunner) {
  return runner.tools.list().map((tool) => ({ ...tool, outputs: [...tool.outputs] }));
}
