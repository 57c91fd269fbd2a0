import { fileURLToPath } from "node:url";
import { type Database, type Db, openDatabase } from "@app/db";
import * as schema from "./schema.ts";

export type BuilderSchema = typeof schema;
export type BuilderDb = Db<BuilderSchema>;
export type BuilderDatabase = Database<BuilderSchema>;
export { schema };

export const builderMigrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Opens the builder's database (PostgreSQL when `url` is set, else PGlite in `dataDir`) and migrates it. */
export function openBuilderDatabase(options: {
  url: string | undefined;
  dataDir: string | undefined;
  cacheMegabytes?: number | undefined;
}) {
  return openDatabase({ ...options, schema, migrationsFolder: builderMigrationsFolder });
}
