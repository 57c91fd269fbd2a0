import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "./connect.ts";

/**
 * A fresh database for one test file: in-memory PGlite by default, or a new database
 * on the server named by `TEST_DATABASE_URL` (dropped again by `close`).
 *
 * @example
 * const database = await createTestDatabase({ schema, migrationsFolder });
 * afterAll(() => database.close());
 */
export async function createTestDatabase<TSchema extends Record<string, unknown>>(options: {
  schema: TSchema;
  migrationsFolder: string;
}): Promise<Database<TSchema> & { url: string | undefined }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({ ...options });
    return { ...database, url: undefined };
  }
  const name = `test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = withDatabase(serverUrl, name);
  const database = await openDatabase({ ...options, url });
  return {
    ...database,
    url,
    close: async () => {
      await database.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

/** The connection string with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
