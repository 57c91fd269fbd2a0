import { runService } from "@app/http";
import { loadPaymentsConfig } from "./config.ts";
import { startPayments } from "./start.ts";

await runService({
  name: "payments",
  configure: () => loadPaymentsConfig(process.env),
  processes: (config) => config.processes,
  start: (config) => startPayments(config),
});
