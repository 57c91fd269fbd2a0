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
import { createRoute, z } from "@hono/zod-openapi";
import { questionAnswerPairs } from "../agents/question-answer-pairs.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { appendDatasetRows } from "./append-dataset-rows.ts";
import { compareRows } from "./compare-evaluations.ts";
import {
  compareQuery,
  comparisonSchema,
  createDatasetBody,
  createEvaluationBody,
  type DatasetRowInput,
  datasetSchema,
  evaluationSchema,
  importResultSchema,
  importRowsBody,
} from "./contract.ts";
import { createDataset } from "./create-dataset.ts";
import { createEvaluation } from "./create-evaluation.ts";
import { toDatasetJson } from "./dataset-json.ts";
import { deleteDataset } from "./delete-dataset.ts";
import { EvaluationErrors } from "./errors.ts";
import { toEvaluationJson } from "./evaluation-json.ts";
import { evaluationTotals } from "./evaluation-totals.ts";
import type { EvaluationWorker } from "./evaluation-worker.ts";
import { findDataset } from "./find-dataset.ts";
import { findEvaluation } from "./find-evaluation.ts";
import { listDatasetRows } from "./list-dataset-rows.ts";
import { listDatasets } from "./list-datasets.ts";
import { listEvaluationResults } from "./list-evaluation-results.ts";
import { listEvaluations } from "./list-evaluations.ts";
import { parseCsvRows } from "./parse-csv-rows.ts";

const datasetRoutes = resourceRoutes({ tag: "evaluations", schema: datasetSchema });

const createDatasetRoute = datasetRoutes.create({
  summary: "Create a dataset from rows, or from messages of the workspace's conversations",
  description: "The dataset",
  body: createDatasetBody,
  errors: [400, 401, 404, 413, 415, 422],
});
const listDatasetsRoute = datasetRoutes.list({
  summary: "The workspace's datasets, newest first",
  description: "A page of datasets",
  query: listQuerySchema,
  page: listOf(datasetSchema).openapi("DatasetList"),
});
const getDatasetRoute = datasetRoutes.get({
  summary: "Get a dataset with its rows",
  description: "The dataset",
});
const deleteDatasetRoute = datasetRoutes.delete({ summary: "Delete a dataset (evaluations of it stay)" });
const importRowsRoute = createRoute({
  method: "post",
  path: "/{id}/rows/import",
  tags: ["evaluations"],
  summary: "Add rows from CSV text",
  description:
    "A header row names the columns: `input` (an agent's message) or `inputs.<field>` (a workflow's inputs), and `expected`. Any bad line refuses the whole import with 422 `invalid_csv`, each problem in `details` naming its line.",
  request: { params: idParam, body: { required: true, content: jsonContent(importRowsBody) } },
  responses: {
    200: { description: "How many rows were added", content: jsonContent(importResultSchema) },
    ...errorResponses(400, 401, 404, 409, 413, 415, 422),
  },
});

/**
 * `/api/datasets`: datasets of rows to evaluate agents and workflows on.
 *
 * @example app.route("/api/datasets", datasetRoutesOf(deps));
 */
export function datasetRoutesOf(deps: Deps) {
  const router = createRouter<AppEnv>();
  router.openapi(createDatasetRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const body = c.req.valid("json");
    let rows: DatasetRowInput[] = "rows" in body ? body.rows : [];
    if ("from_messages" in body) {
      const pairs = await questionAnswerPairs(deps.db, workspaceId, body.from_messages);
      const found = new Set(pairs.map((pair) => pair.messageId));
      const missing = body.from_messages.findIndex((id) => !found.has(id));
      if (missing >= 0) throw EvaluationErrors.MESSAGE_NOT_FOUND({ param: `from_messages.${missing}` });
      rows = pairs.map((pair) => ({ input: pair.question, expected: pair.answer }));
    }
    const row = await createDataset(deps, workspaceId, { name: body.name, rows });
    return c.json(toDatasetJson(row), 201);
  });
  router.openapi(listDatasetsRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listDatasets(deps.db, c.get("principal").workspaceId, query);
    return c.json(
      toPage(rows, query.limit, (row) => toDatasetJson(row)),
      200,
    );
  });
  router.openapi(getDatasetRoute, async (c) => {
    const row = await findDataset(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!row) throw EvaluationErrors.DATASET_NOT_FOUND();
    return c.json(toDatasetJson(row, await listDatasetRows(deps.db, row.id)), 200);
  });
  router.openapi(deleteDatasetRoute, async (c) => {
    const isDeleted = await deleteDataset(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    if (!isDeleted) throw EvaluationErrors.DATASET_NOT_FOUND();
    return c.body(null, 204);
  });
  router.openapi(importRowsRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const id = c.req.valid("param").id;
    const dataset = await findDataset(deps.db, workspaceId, id);
    if (!dataset) throw EvaluationErrors.DATASET_NOT_FOUND();
    const { rows, problems } = parseCsvRows(c.req.valid("json").csv);
    if (problems.length > 0) throw EvaluationErrors.INVALID_CSV({ param: "csv", details: problems });
    const result = await appendDatasetRows(deps.db, workspaceId, id, rows);
    if (!result) throw EvaluationErrors.DATASET_NOT_FOUND();
    if (result === "too_large") throw EvaluationErrors.DATASET_TOO_LARGE({ param: "csv" });
    return c.json({ imported: rows.length, row_count: result.rowCount }, 200);
  });
  return router;
}

const evaluationListQuery = listQuerySchema.extend({
  target_id: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: "target_id", in: "query" }, description: "Only this agent's or workflow's" }),
});

const createEvaluationRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["evaluations"],
  summary: "Evaluate an agent or a workflow version on a dataset",
  description:
    "Answers 202 at once; the rows run in the background (a few at a time) and `GET /api/evaluations/{id}` shows `status` and `rows_done` of `rows_total`. A row whose target fails scores 0.",
  request: { body: { required: true, content: jsonContent(createEvaluationBody) } },
  responses: {
    202: { description: "The evaluation, running", content: jsonContent(evaluationSchema) },
    ...errorResponses(400, 401, 404, 413, 415, 422),
  },
});
const listEvaluationsRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["evaluations"],
  summary: "The workspace's evaluations, newest first",
  request: { query: evaluationListQuery },
  responses: {
    200: {
      description: "A page of evaluations",
      content: jsonContent(listOf(evaluationSchema).openapi("EvaluationList")),
    },
    ...errorResponses(401, 422),
  },
});
const compareRoute = createRoute({
  method: "get",
  path: "/compare",
  tags: ["evaluations"],
  summary: "Two evaluations side by side, row by row",
  request: { query: compareQuery },
  responses: {
    200: { description: "Both evaluations and each row's change", content: jsonContent(comparisonSchema) },
    ...errorResponses(401, 404, 422),
  },
});
const getEvaluationRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["evaluations"],
  summary: "Get an evaluation with every row's output and scores",
  request: { params: idParam },
  responses: {
    200: { description: "The evaluation", content: jsonContent(evaluationSchema) },
    ...errorResponses(401, 404),
  },
});

/**
 * `/api/evaluations`: start evaluations, follow them, compare two.
 *
 * @example app.route("/api/evaluations", evaluationRoutes(deps, worker));
 */
export function evaluationRoutes(deps: Deps, worker: Pick<EvaluationWorker, "wake">) {
  const router = createRouter<AppEnv>();
  const answer = async (workspaceId: string, id: string, param?: string) => {
    const row = await findEvaluation(deps.db, workspaceId, id);
    if (!row) throw EvaluationErrors.EVALUATION_NOT_FOUND(param ? { param } : {});
    const [totals, results] = await Promise.all([
      evaluationTotals(deps.db, [row.id]),
      listEvaluationResults(deps.db, row.id),
    ]);
    return toEvaluationJson(row, totals.get(row.id), results);
  };
  router.openapi(createEvaluationRoute, async (c) => {
    const row = await createEvaluation(deps, c.get("principal").workspaceId, c.req.valid("json"));
    worker.wake();
    return c.json(toEvaluationJson(row, undefined), 202);
  });
  router.openapi(listEvaluationsRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listEvaluations(deps.db, c.get("principal").workspaceId, {
      limit: query.limit,
      cursor: query.cursor,
      targetId: query.target_id,
    });
    const totals = await evaluationTotals(
      deps.db,
      rows.map((row) => row.id),
    );
    return c.json(
      toPage(rows, query.limit, (row) => toEvaluationJson(row, totals.get(row.id))),
      200,
    );
  });
  router.openapi(compareRoute, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const { a, b } = c.req.valid("query");
    const [left, right] = [await answer(workspaceId, a, "a"), await answer(workspaceId, b, "b")];
    const { rows: leftRows = [], ...leftSummary } = left;
    const { rows: rightRows = [], ...rightSummary } = right;
    const delta =
      left.mean_score !== null && right.mean_score !== null
        ? Math.round((right.mean_score - left.mean_score) * 10_000) / 10_000
        : null;
    return c.json(
      { a: leftSummary, b: rightSummary, mean_delta: delta, rows: compareRows(leftRows, rightRows) },
      200,
    );
  });
  router.openapi(getEvaluationRoute, async (c) => {
    return c.json(await answer(c.get("principal").workspaceId, c.req.valid("param").id), 200);
  });
  return router;
}
