import { NodeExecutionError } from "./node-error.ts";

/** Longest pattern a `matches` condition accepts. */
export const MAX_PATTERN_LENGTH = 200;
/** Longest text a `matches` condition tests; beyond it the node fails instead of risking a slow match. */
export const MAX_MATCH_INPUT_LENGTH = 10_000;

const compiled = new Map<string, RegExp>();
const MAX_CACHED = 256;

/**
 * Why a pattern is refused, or undefined when it is safe enough to run. JavaScript's backtracking engine
 * can take exponential time, so besides the length caps this refuses the classic culprit: a repeated
 * group that itself contains a repetition, such as `(a+)+` or `(\w*,)*`.
 *
 * @example patternProblem("(a+)+$") // "nested repetition (a quantified group containing a quantifier) …"
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `pattern is ${pattern.length} characters; the limit is ${MAX_PATTERN_LENGTH}`;
  }
  try {
    new RegExp(pattern);
  } catch (error) {
    return error instanceof Error ? error.message : "invalid regular expression";
  }
  if (hasNestedRepetition(pattern)) {
    return "nested repetition (a quantified group containing a quantifier) can take exponential time";
  }
  return undefined;
}

/**
 * Tests `input` against `pattern` under the guards of `patternProblem` and `MAX_MATCH_INPUT_LENGTH`.
 *
 * @example guardedMatch("^[a-z]+@example\\.com$", "ana@example.com") // true
 */
export function guardedMatch(pattern: string, input: string): boolean {
  if (input.length > MAX_MATCH_INPUT_LENGTH) {
    throw new NodeExecutionError(
      "match_input_too_long",
      `matches: the text is ${input.length} characters; the limit is ${MAX_MATCH_INPUT_LENGTH}`,
    );
  }
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const problem = patternProblem(pattern);
    if (problem !== undefined) throw new NodeExecutionError("invalid_pattern", `matches: ${problem}`);
    regex = new RegExp(pattern);
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex.test(input);
}

function hasNestedRepetition(pattern: string): boolean {
  // One entry per open group: does anything inside it repeat?
  const groups: boolean[] = [false];
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i];
    let atomEnd = i + 1;
    let atomRepeats = false;
    if (char === "\\") {
      atomEnd = i + 2;
    } else if (char === "[") {
      atomEnd = endOfClass(pattern, i);
    } else if (char === "(") {
      groups.push(false);
      i += 1;
      continue;
    } else if (char === ")") {
      atomRepeats = groups.pop() ?? false;
      if (groups.length === 0) groups.push(false);
    } else if (char === "*" || char === "+" || char === "?" || char === "{" || char === "|") {
      i += 1;
      continue;
    }
    const quantified = isRepeatingQuantifier(pattern, atomEnd);
    if (quantified && atomRepeats) return true;
    if (quantified || atomRepeats) groups[groups.length - 1] = true;
    i = atomEnd;
  }
  return false;
}

function endOfClass(pattern: string, start: number): number {
  let i = start + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}

function isRepeatingQuantifier(pattern: string, at: number): boolean {
  const char = pattern[at];
  if (char === "*" || char === "+") return true;
  return char === "{" && /^\{\d+(,\d*)?\}/.test(pattern.slice(at, at + 16));
}
