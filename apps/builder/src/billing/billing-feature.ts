import type { Deps } from "../deps.ts";
import { type BillingWorker, createBillingWorker } from "./billing-worker.ts";
import { billingRoutes } from "./routes.ts";

export { BILLING_WEBHOOK_PATH } from "./connect-payment-service.ts";

/**
 * Billing as the app mounts it: `/api/billing` and the background worker that links the builder to
 * the payment service and reconciles.
 *
 * @example const billing = createBillingFeature(deps); app.route("/api/billing", billing.routes); billing.worker.start();
 */
export function createBillingFeature(deps: Deps): {
  routes: ReturnType<typeof billingRoutes>;
  worker: BillingWorker;
} {
  return { routes: billingRoutes(deps), worker: createBillingWorker(deps) };
}
