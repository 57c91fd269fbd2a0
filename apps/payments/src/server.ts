import { runService } from "@app/http";
import { loadPaymentsConfig } from "./config.ts";
import { startPayments } from "./start.ts";

await runService("payments", () => startPayments(loadPaymentsConfig(process.env)));
