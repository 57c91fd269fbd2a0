export {
  type BaseEnv,
  type BaseVariables,
  createRouter,
  errorHandler,
  isRejectedBeforeRunning,
  limitBody,
  notFoundHandler,
  requestId,
  requestLogger,
  respondWithError,
  toApiError,
} from "./app.ts";
export { compressJson } from "./compress-json.ts";
export { apiDocs } from "./docs.ts";
export {
  ApiError,
  CommonErrors,
  defineErrors,
  type ErrorBody,
  type ErrorDetail,
  type ErrorType,
  errorTypeFor,
} from "./errors.ts";
export { healthRoutes } from "./health.ts";
export { guardInput } from "./input-guard.ts";
export { createLogger, type Logger } from "./logger.ts";
export {
  atMostOneCursor,
  completeErrorResponses,
  errorBodySchema,
  errorResponses,
  ID_PATTERN,
  idParam,
  idPattern,
  jsonContent,
  listOf,
  listQuerySchema,
  patchBody,
  pathId,
  searchableListQuerySchema,
  toPage,
} from "./openapi.ts";
export { resourceRoutes } from "./resource-routes.ts";
export { listen, type RunningServer, runService, type ServiceDefinition } from "./serve.ts";
export { type EventWriter, eventStream } from "./sse.ts";
export { issuePath, validationError, validationHook } from "./validation.ts";
