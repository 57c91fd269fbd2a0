export { type CompiledWorkflow, compileWorkflow, WorkflowGraphError } from "./compile-workflow.ts";
export { evaluateCondition, type ResolvedCase, type ResolvedCondition, selectCase } from "./condition.ts";
export type {
  ExecutorContext,
  ExecutorResult,
  NodeExecutor,
  NodeExecutors,
  TokenUsage,
} from "./executors.ts";
export { type GraphIndex, indexGraph, reachableFrom } from "./graph-index.ts";
export {
  formatPath,
  type GraphIssue,
  type GraphIssueCode,
  type InputIssue,
  type InputIssueCode,
} from "./graph-issue.ts";
export { guardedMatch, MAX_MATCH_INPUT_LENGTH, MAX_PATTERN_LENGTH, patternProblem } from "./guarded-regex.ts";
export { type NodeError, NodeExecutionError, type NodeLogs } from "./node-error.ts";
export { type NodeInputsByType, resolveNodeInputs, TEMPLATE_FIELDS } from "./node-inputs.ts";
export { declaredOutputs, ERROR_OUTPUT_FIELD, type ToolOutputs } from "./node-outputs.ts";
export { type ParseGraphResult, parseWorkflowGraph } from "./parse-graph.ts";
export { type NodeAttempt, parseRetryAfter, retryDelayMs, retryPolicyOf } from "./retry.ts";
export type {
  ApprovalDecision,
  NodeFailedEvent,
  NodeFinishedEvent,
  NodeRunRecord,
  NodeSkippedEvent,
  NodeStartedEvent,
  NodeWaitingEvent,
  PendingApproval,
  RecordedNode,
  RunError,
  RunFinishedEvent,
  RunRecorder,
  RunResult,
  RunStartedEvent,
  RunStatus,
} from "./run-events.ts";
export { DEFAULT_RUN_LIMITS, type RunLimits, type RunWorkflowOptions, runWorkflow } from "./run-workflow.ts";
export * from "./schema.ts";
export {
  resolveStartInputs,
  type StartInputsJsonSchema,
  type StartInputsResult,
  startInputsJsonSchema,
} from "./start-inputs.ts";
export {
  parseReference,
  parseTemplate,
  type ResolveOptions,
  resolveTemplates,
  resolveTemplateText,
  stringifyValue,
  TemplateError,
  type TemplatePart,
  type TemplateReference,
  type TemplateScope,
} from "./template.ts";
export { type ValidateOptions, validateGraph } from "./validate-graph.ts";
