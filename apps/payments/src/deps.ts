import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { PaymentsConfig } from "./config.ts";
import type { PaymentsDb } from "./db/index.ts";

/** What use-cases and routes are given; tests build the same object with their own clock and database. */
export interface Deps {
  db: PaymentsDb;
  clock: Clock;
  logger: Logger;
  config: PaymentsConfig;
}
