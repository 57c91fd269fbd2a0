export {
  type Database,
  type DatabaseKind,
  type Db,
  type OpenDatabaseOptions,
  openDatabase,
} from "./connect.ts";
export { newestFirst, type PageRequest } from "./pagination.ts";
export { executePrepared, preparedPerDb } from "./prepared.ts";
export { writeTogether } from "./write-together.ts";
