import { fileURLToPath } from "node:url";
import { type Database, type Db, openDatabase } from "@app/db";
import * as schema from "./schema.ts";

export type PaymentsSchema = typeof schema;
export type PaymentsDb = Db<PaymentsSchema>;
export type PaymentsTx = Parameters<Parameters<PaymentsDb["transaction"]>[0]>[0];
export type PaymentsDatabase = Database<PaymentsSchema>;
export { schema };

export const paymentsMigrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Opens the payment service's database (PostgreSQL when `url` is set, else PGlite in `dataDir`) and migrates it. */
export function openPaymentsDatabase(options: {
  url: string | undefined;
  dataDir: string | undefined;
  poolSize?: number;
  cacheMegabytes?: number | undefined;
}) {
  return openDatabase({ ...options, schema, migrationsFolder: paymentsMigrationsFolder });
}
