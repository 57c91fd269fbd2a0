import { defineErrors } from "@app/http";

export const EvaluationErrors = defineErrors({
  DATASET_NOT_FOUND: { status: 404, message: "No dataset with this id." },
  EVALUATION_NOT_FOUND: { status: 404, message: "No evaluation with this id." },
  MESSAGE_NOT_FOUND: { status: 404, message: "No message with this id in this workspace." },
  TARGET_NOT_FOUND: { status: 404, message: "No agent or workflow with this id." },
  DATASET_TOO_LARGE: {
    status: 409,
    message: "A dataset holds at most 1000 rows; split it or delete rows first.",
  },
  INVALID_CSV: { status: 422, message: "The CSV could not be imported; each problem names its line." },
  DATASET_EMPTY: { status: 422, message: "The dataset has no rows to evaluate; add rows first." },
  ROWS_DO_NOT_FIT_TARGET: {
    status: 422,
    message: "An agent's rows need `input`, a workflow's rows need `inputs`.",
  },
  EVALUATION_GATE_FAILED: {
    status: 409,
    message: "The draft scored under the evaluation gate's min_score; fix it, or publish with force: true.",
  },
  EVALUATION_GATE_TIMEOUT: {
    status: 504,
    message: "The evaluation gate did not finish in time; it goes on in the background (see evaluation_id).",
  },
});
