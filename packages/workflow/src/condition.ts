import { isDeepStrictEqual } from "node:util";
import { guardedMatch } from "./guarded-regex.ts";
import { NodeExecutionError } from "./node-error.ts";
import { type ConditionOperator, ELSE_HANDLE } from "./schema.ts";
import { stringifyValue } from "./template.ts";

/** A condition whose operands have already been resolved from templates. */
export interface ResolvedCondition {
  left: unknown;
  operator: ConditionOperator;
  right?: unknown;
}

export interface ResolvedCase {
  id: string;
  logic: "and" | "or";
  conditions: readonly ResolvedCondition[];
}

/**
 * The id of the first case whose conditions hold, or `"else"`.
 *
 * @example selectCase([{ id: "adult", logic: "and", conditions: [{ left: 20, operator: "gte", right: "18" }] }]) // "adult"
 */
export function selectCase(cases: readonly ResolvedCase[]): string {
  for (const candidate of cases) {
    const holds =
      candidate.logic === "or"
        ? candidate.conditions.some(evaluateCondition)
        : candidate.conditions.every(evaluateCondition);
    if (holds) return candidate.id;
  }
  return ELSE_HANDLE;
}

/**
 * Evaluates one typed comparison. Numbers (and numeric strings facing a number) compare numerically,
 * booleans match "true"/"false", strings compare by code unit (so ISO dates order correctly), arrays
 * `contains` an equal element, objects `contains` a key. Operands that cannot be ordered make gt/lt false.
 *
 * @example evaluateCondition({ left: "10", operator: "gt", right: 9 }) // true
 */
export function evaluateCondition(condition: ResolvedCondition): boolean {
  const { left, right } = condition;
  switch (condition.operator) {
    case "eq":
      return looselyEqual(left, right);
    case "ne":
      return !looselyEqual(left, right);
    case "contains":
      return contains(left, right);
    case "not_contains":
      return !contains(left, right);
    case "starts_with":
      return isText(left) && String(left).startsWith(stringifyValue(right));
    case "ends_with":
      return isText(left) && String(left).endsWith(stringifyValue(right));
    case "gt":
      return compare(left, right, (order) => order > 0);
    case "gte":
      return compare(left, right, (order) => order >= 0);
    case "lt":
      return compare(left, right, (order) => order < 0);
    case "lte":
      return compare(left, right, (order) => order <= 0);
    case "empty":
      return isEmpty(left);
    case "not_empty":
      return !isEmpty(left);
    case "matches":
      return matches(left, right);
  }
}

function looselyEqual(left: unknown, right: unknown): boolean {
  if (left === null || left === undefined || right === null || right === undefined) {
    return (left ?? null) === (right ?? null);
  }
  if (typeof left === "number" || typeof right === "number") {
    const a = toNumber(left);
    const b = toNumber(right);
    return a !== undefined && b !== undefined && a === b;
  }
  if (typeof left === "boolean" || typeof right === "boolean") {
    const a = toBoolean(left);
    const b = toBoolean(right);
    return a !== undefined && a === b;
  }
  if (typeof left === "string" || typeof right === "string") return left === right;
  return isDeepStrictEqual(left, right);
}

function contains(left: unknown, right: unknown): boolean {
  if (Array.isArray(left)) return left.some((item) => looselyEqual(item, right));
  if (typeof left === "string")
    return right !== null && right !== undefined && left.includes(stringifyValue(right));
  if (left !== null && typeof left === "object")
    return typeof right === "string" && Object.hasOwn(left, right);
  return false;
}

function compare(left: unknown, right: unknown, accept: (order: number) => boolean): boolean {
  const a = toNumber(left);
  const b = toNumber(right);
  if (a !== undefined && b !== undefined) return accept(a - b);
  if (typeof left === "string" && typeof right === "string")
    return accept(left < right ? -1 : left > right ? 1 : 0);
  return false;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

function matches(left: unknown, right: unknown): boolean {
  if (typeof right !== "string") {
    throw new NodeExecutionError("invalid_pattern", "matches: the right operand must be a pattern string");
  }
  if (!isText(left)) return false;
  return guardedMatch(right, String(left));
}

function isText(value: unknown): value is string | number {
  return typeof value === "string" || typeof value === "number";
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  if (text === "true") return true;
  if (text === "false") return false;
  return undefined;
}
