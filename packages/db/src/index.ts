export { type CacheSize, embeddedCacheSize, recordHotSet } from "./cache-size.ts";
export {
  type Database,
  type DatabaseKind,
  type Db,
  type OpenDatabaseOptions,
  openDatabase,
} from "./connect.ts";
export { containsText, newestFirst, type PageRequest } from "./pagination.ts";
export { preparedQuery, queryRows } from "./statements.ts";
export { isUniqueViolation } from "./unique-violation.ts";
export { writeTogether } from "./write-together.ts";
