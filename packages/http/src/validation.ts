import type { Context } from "hono";
import type { z } from "zod";
import { CommonErrors, type ErrorDetail } from "./errors.ts";

/** Dotted field path of a zod issue, with array indexes in brackets: `graph.nodes[2].id`. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/**
 * The 422 error for failed zod validation, naming every offending field. An unknown key (a strict
 * object's `unrecognized_keys`) is named itself, not the object holding it.
 */
export function validationError(error: z.ZodError, target?: string) {
  const details: ErrorDetail[] = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: issuePath([...issue.path, key]), message: "is not a known field" }))
      : [{ path: issuePath(issue.path), message: readableMessage(issue) }],
  );
  const first = details[0];
  const where = first?.path ? `${first.path}: ` : target ? `${target}: ` : "";
  return CommonErrors.VALIDATION_FAILED({
    message: `Invalid ${target ?? "request"}. ${where}${first?.message ?? "invalid value"}`,
    details,
    ...(first?.path ? { param: first.path } : {}),
  });
}

/**
 * The OpenAPIHono `defaultHook`: a failed zod check becomes one 422 in the error shape.
 *
 * @example new OpenAPIHono({ defaultHook: validationHook })
 */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; target: string },
  _c: Context,
): void {
  if (!result.success) throw validationError(result.error, describeTarget(result.target));
}

function describeTarget(target: string): string {
  if (target === "json" || target === "form") return "body";
  if (target === "param") return "path";
  return target;
}

/** zod says "expected string, received undefined" for a missing field; people say "is required". */
function readableMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return "is required";
  return issue.message;
}
