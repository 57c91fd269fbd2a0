export { analyzeIfStale } from "./analyze-if-stale.ts";
export { type CacheSize, embeddedCacheSize, recordHotSet } from "./cache-size.ts";
export {
  type Database,
  type DatabaseKind,
  type Db,
  type OpenDatabaseOptions,
  openDatabase,
} from "./connect.ts";
export { containsPattern } from "./like-pattern.ts";
export { containsText, newestFirst, type PageRequest } from "./pagination.ts";
export { preparedQuery, queryRows } from "./statements.ts";
export { isUniqueViolation } from "./unique-violation.ts";
export { writeTogether } from "./write-together.ts";
