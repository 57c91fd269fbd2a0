export type { WebhooksDb } from "./db.ts";
export {
  type AttemptRow,
  DELIVERY_RETENTION_MS,
  type DeliveryQueue,
  type DeliveryRow,
  deliveryQueue,
  endpointDeliveryStats,
  findDelivery,
  listDeliveries,
  pruneDeliveryRecords,
  type ReplayResult,
  replayDelivery,
  replayFailedDeliveries,
  toDeliveryJson,
} from "./deliveries.ts";
export {
  countEndpoints,
  createEndpoint,
  deleteEndpoint,
  type EndpointRow,
  findEndpoint,
  listEndpoints,
  newSigningSecret,
  rotateEndpointSecret,
  SECRET_ROTATION_OVERLAP_MS,
  toEndpointJson,
  updateEndpoint,
} from "./endpoints.ts";
export { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineOptions } from "./engine.ts";
export {
  type EventEnvelope,
  type EventPage,
  eventIdFor,
  eventListJson,
  findEventBody,
  type ListEventsQuery,
  listEvents,
  type RecordedEvent,
  recordEvent,
  UnknownCursorError,
} from "./events.ts";
export { nextAttemptAfterFailure, RETRY_DELAYS_MS } from "./retry.ts";
export type { DeliveryStatus } from "./schema.ts";
export {
  DELIVERY_TIMEOUT_MS,
  DeliveryTimeoutError,
  httpSender,
  RESPONSE_BODY_LIMIT_BYTES,
  type Sender,
  type SendRequest,
  type SendResponse,
} from "./sender.ts";
export {
  DEFAULT_TOLERANCE_SECONDS,
  sign,
  signatureHeader,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyResult,
  verify,
} from "./signature.ts";
export {
  checkWebhookUrl,
  guardedLookup,
  isBlockedAddress,
  type Resolver,
  resolveAll,
  WebhookUrlError,
} from "./ssrf.ts";
