import type { Deps } from "../deps.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import type { PaymentHelperAction } from "./contract.ts";
import { PaymentErrors } from "./errors.ts";
import { findPayment } from "./find-payment.ts";
import type { PaymentStatus } from "./schema.ts";
import { transitionPayment } from "./transition-payment.ts";

/** Which states each test helper walks through; `succeed` from pending passes through processing. */
function helperSteps(action: PaymentHelperAction, status: PaymentStatus): PaymentStatus[] {
  if (action === "process") return ["processing"];
  if (action === "succeed") return status === "pending" ? ["processing", "succeeded"] : ["succeeded"];
  if (action === "fail") return ["failed"];
  return ["expired"];
}

/**
 * Runs a payment test helper: the same moves the simulated provider makes from the checkout page.
 *
 * @example await simulatePayment(deps, scope, "pay_…", "succeed");
 */
export async function simulatePayment(
  deps: Deps,
  scope: MerchantScope,
  id: string,
  action: PaymentHelperAction,
) {
  const current = await findPayment(deps.db, scope, id);
  if (!current) throw PaymentErrors.PAYMENT_NOT_FOUND();
  return transitionPayment(deps, scope, id, helperSteps(action, current.status), {
    ...(action === "fail" ? { failureReason: "simulated_failure" } : {}),
  });
}
