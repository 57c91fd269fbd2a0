import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { PaymentsConfig } from "./config.ts";
import type { PaymentsDb } from "./db/index.ts";

/** Tells the delivery engine that new deliveries were committed (a no-op when it runs elsewhere). */
export interface DeliveryNotifier {
  wake(): void;
}

/** What use-cases and routes are given; tests build the same object with their own clock and database. */
export interface Deps {
  db: PaymentsDb;
  clock: Clock;
  logger: Logger;
  config: PaymentsConfig;
  deliveries: DeliveryNotifier;
}
