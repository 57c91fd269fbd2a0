export { type Clock, manualClock, systemClock, unixSeconds } from "./clock.ts";
export { commonJsExports } from "./common-js.ts";
export { ConfigError, configError, presentVariables, severalProcessesNeedServer } from "./config-error.ts";
export { newId, newSecretToken } from "./ids.ts";
export {
  type PeriodicJobOptions,
  type PollLoop,
  type PollLoopOptions,
  type PollOutcome,
  periodicJob,
  pollLoop,
} from "./poll-loop.ts";
export { readOrCreateSecretFile } from "./secret-file.ts";
export { constantTimeEqual, sha256Hex } from "./secrets.ts";
export { hasUnstorableCharacter, storableJson, toStorable, toStorableText } from "./storable.ts";
