import {
  createRouter,
  errorResponses,
  idParam,
  jsonContent,
  listOf,
  listQuerySchema,
  resourceRoutes,
  toPage,
} from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "../../deps.ts";
import type { AppEnv } from "../../env.ts";
import { checkRunnable } from "../check-runnable.ts";
import { WorkflowErrors } from "../errors.ts";
import { findWorkflow } from "../find-workflow.ts";
import type { WorkflowRunner } from "../runs/workflow-runner.ts";
import type { WorkflowRow } from "../schema.ts";
import { workflowToRun } from "../workflow-versions.ts";
import { createScheduleBody, scheduleSchema, updateScheduleBody } from "./contract.ts";
import { createSchedule } from "./create-schedule.ts";
import { deleteSchedule } from "./delete-schedule.ts";
import { ScheduleErrors } from "./errors.ts";
import { findLastRuns } from "./find-last-runs.ts";
import { findSchedule } from "./find-schedule.ts";
import { listSchedules } from "./list-schedules.ts";
import { toScheduleJson } from "./schedule-json.ts";
import type { Scheduler } from "./scheduler.ts";
import { updateSchedule } from "./update-schedule.ts";

const routes = resourceRoutes({ tag: "schedules", schema: scheduleSchema });

const createScheduleRoute = createRoute({
  method: "post",
  path: "/workflows/{id}/schedules",
  tags: ["schedules"],
  summary: "Run a workflow on a cron schedule",
  description:
    "Each tick fires once across every builder process sharing the database. A bad `cron` or an unknown `timezone` is 422 naming the field; inputs that do not fit the Start node are 422 `invalid_inputs`.",
  request: { params: idParam, body: { required: true, content: jsonContent(createScheduleBody) } },
  responses: {
    201: { description: "The schedule, with its next five ticks", content: jsonContent(scheduleSchema) },
    ...errorResponses(400, 401, 404, 409, 413, 415, 422),
  },
});

const listSchedulesRoute = createRoute({
  method: "get",
  path: "/workflows/{id}/schedules",
  tags: ["schedules"],
  summary: "A workflow's schedules, newest first",
  request: { params: idParam, query: listQuerySchema },
  responses: {
    200: {
      description: "A page of schedules",
      content: jsonContent(listOf(scheduleSchema).openapi("ScheduleList")),
    },
    ...errorResponses(401, 404, 422),
  },
});

const getScheduleRoute = routes.get({ summary: "Get a schedule", description: "The schedule" });

const updateScheduleRoute = routes.update({
  summary: "Change a schedule's cron, time zone, inputs, policies, or pause and resume it",
  description: "The schedule",
  body: updateScheduleBody,
  errors: [400, 401, 404, 413, 415, 422],
});

const deleteScheduleRoute = routes.delete({ summary: "Delete a schedule (its runs stay)" });

/** A workflow's schedules (`/api/workflows/{id}/schedules`) and each schedule (`/api/schedules/{id}`); mounted at /api. */
export function scheduleRoutes(deps: Deps, runner: WorkflowRunner, scheduler: Scheduler) {
  const router = createRouter<AppEnv>();
  const ownWorkflow = async (c: Context<AppEnv>, id: string) => {
    const row = await findWorkflow(deps.db, c.get("principal").workspaceId, id);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    return row;
  };
  // Inputs are checked against the Start node of what the ticks run: the published version, or the draft.
  const checkInputs = async (workflow: WorkflowRow, inputs: Record<string, unknown>) => {
    const chosen = await workflowToRun(deps.db, workflow, "published");
    if (chosen === "version_not_found") checkRunnable(runner, workflow, inputs);
    else checkRunnable(runner, chosen.workflow, inputs, chosen.version);
  };
  const answer = async (row: NonNullable<Awaited<ReturnType<typeof findSchedule>>>) =>
    toScheduleJson(row, (await findLastRuns(deps.db, [row.id])).get(row.id));

  router.openapi(createScheduleRoute, async (c) => {
    const workflow = await ownWorkflow(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    await checkInputs(workflow, body.inputs);
    const row = await createSchedule(deps, workflow.workspaceId, workflow.id, body);
    scheduler.wake();
    return c.json(toScheduleJson(row, undefined), 201);
  });
  router.openapi(listSchedulesRoute, async (c) => {
    const workflow = await ownWorkflow(c, c.req.valid("param").id);
    const query = c.req.valid("query");
    const rows = await listSchedules(deps.db, workflow.workspaceId, workflow.id, query);
    const lastRuns = await findLastRuns(
      deps.db,
      rows.slice(0, query.limit).map((row) => row.id),
    );
    return c.json(
      toPage(rows, query.limit, (row) => toScheduleJson(row, lastRuns.get(row.id))),
      200,
    );
  });

  const schedules = createRouter<AppEnv>();
  schedules.openapi(getScheduleRoute, async (c) => {
    const row = await findSchedule(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw ScheduleErrors.SCHEDULE_NOT_FOUND();
    return c.json(await answer(row), 200);
  });
  schedules.openapi(updateScheduleRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const body = c.req.valid("json");
    const existing = await findSchedule(deps.db, workspaceId, c.req.valid("param").id);
    if (!existing) throw ScheduleErrors.SCHEDULE_NOT_FOUND();
    if (body.inputs !== undefined) await checkInputs(await ownWorkflow(c, existing.workflowId), body.inputs);
    const row = await updateSchedule(deps, workspaceId, existing.id, body);
    if (!row) throw ScheduleErrors.SCHEDULE_NOT_FOUND();
    scheduler.wake();
    return c.json(await answer(row), 200);
  });
  schedules.openapi(deleteScheduleRoute, async (c) => {
    const isDeleted = await deleteSchedule(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw ScheduleErrors.SCHEDULE_NOT_FOUND();
    return c.body(null, 204);
  });
  router.route("/schedules", schedules);
  return router;
}
