export { poolGauge, poolSamples } from "./database.ts";
export {
  agentTurnsTotal,
  createServiceMetrics,
  creditsSpentTotal,
  modelTokensTotal,
  type QueueSample,
  type Sample,
  type ServiceMetrics,
  workflowRunsTotal,
} from "./metrics.ts";
export { metricsRoutes } from "./routes.ts";
export { aiTelemetry, annotateSpan, startTracing, type Tracing, traceRequests, withSpan } from "./tracing.ts";
