// Which n8n node types have a counterpart here, and what each becomes (docs/history-and-import.md,
// "From n8n"). Only the kind is decided here; the conversion builds the nodes.
import type { N8nNode } from "../contract.ts";
import { unsupportedCode } from "./code.ts";

const BASE = "n8n-nodes-base.";
const LANGCHAIN = "@n8n/n8n-nodes-langchain.";

export type TriggerMode = "webhook" | "fields" | "chat";

/** What an n8n node is for the conversion. */
export type NodeKind =
  | { kind: "trigger"; mode: TriggerMode; note?: string }
  | { kind: "http" }
  | { kind: "code"; language: "javascript" | "python"; code: string }
  | { kind: "set" }
  | { kind: "if" }
  | { kind: "respond" }
  | { kind: "llm"; flavour: "openai" | "openai_legacy" | "chain" | "agent" }
  | { kind: "model" }
  | { kind: "through"; reason: string }
  | { kind: "ignored"; reason: string }
  | { kind: "unmappable"; reason: string; isTrigger: boolean };

/** The providers of n8n's chat model sub-nodes, by node type. */
export const MODEL_PROVIDERS: Record<string, string> = {
  [`${LANGCHAIN}lmChatOpenAi`]: "openai",
  [`${LANGCHAIN}lmOpenAi`]: "openai",
  [`${LANGCHAIN}lmChatAzureOpenAi`]: "openai-compatible",
  [`${LANGCHAIN}lmChatAnthropic`]: "anthropic",
  [`${LANGCHAIN}lmChatGoogleGemini`]: "google",
  [`${LANGCHAIN}lmChatMistralCloud`]: "mistral",
  [`${LANGCHAIN}lmChatGroq`]: "groq",
  [`${LANGCHAIN}lmChatDeepSeek`]: "deepseek",
  [`${LANGCHAIN}lmChatXAiGrok`]: "xai",
  [`${LANGCHAIN}lmCohere`]: "cohere",
  [`${LANGCHAIN}lmChatOllama`]: "openai-compatible",
  [`${LANGCHAIN}lmChatOpenRouter`]: "openai-compatible",
};

const TRIGGERS: Record<string, TriggerMode> = {
  [`${BASE}manualTrigger`]: "fields",
  [`${BASE}start`]: "fields",
  [`${BASE}webhook`]: "webhook",
  [`${BASE}executeWorkflowTrigger`]: "fields",
  [`${BASE}formTrigger`]: "fields",
  [`${LANGCHAIN}chatTrigger`]: "chat",
  [`${LANGCHAIN}manualChatTrigger`]: "chat",
};

const SCHEDULES = new Set([`${BASE}scheduleTrigger`, `${BASE}cron`, `${BASE}interval`]);

/** Whether an n8n node type starts workflows (its name says so, or it is a known schedule). */
export const isTriggerType = (type: string) =>
  type in TRIGGERS || SCHEDULES.has(type) || /trigger$/i.test(type);

const parameters = (node: N8nNode): Record<string, unknown> => node.parameters ?? {};

/**
 * What an n8n node becomes, or why it has no counterpart.
 *
 * @example classify({ name: "Fetch", type: "n8n-nodes-base.httpRequest", parameters: { url: "…" } }) // { kind: "http" }
 */
export function classify(node: N8nNode): NodeKind {
  const type = node.type;
  const params = parameters(node);
  if (type === `${BASE}stickyNote`) return { kind: "ignored", reason: "a sticky note" };
  if (node.disabled === true && !isTriggerType(type)) {
    return { kind: "through", reason: "disabled in n8n: its input passes through" };
  }
  if (type === `${BASE}noOp`) return { kind: "through", reason: "does nothing: its input passes through" };
  const trigger = TRIGGERS[type];
  if (trigger) return { kind: "trigger", mode: trigger };
  if (SCHEDULES.has(type)) {
    return {
      kind: "trigger",
      mode: "fields",
      note: "n8n ran this workflow on a schedule: add a schedule to it (Schedules, or POST /api/workflows/{id}/schedules)",
    };
  }
  if (type in MODEL_PROVIDERS) return { kind: "model" };
  switch (type) {
    case `${BASE}httpRequest`:
      return httpKind(params);
    case `${BASE}code`:
      return codeKind(params, node.typeVersion ?? 1);
    case `${BASE}function`:
      return codeKindOf("javascript", params.functionCode);
    case `${BASE}functionItem`:
      return codeKindOf("javascript", params.functionCode);
    case `${BASE}set`:
      return setKind(params, node.typeVersion ?? 1);
    case `${BASE}if`:
      return ifKind(params, node.typeVersion ?? 1);
    case `${BASE}respondToWebhook`:
      return { kind: "respond" };
    case `${LANGCHAIN}openAi`: {
      const resource = params.resource ?? "text";
      if (resource !== "text")
        return unmappable(`its ${String(resource)} operations have no counterpart here`);
      return { kind: "llm", flavour: "openai" };
    }
    case `${BASE}openAi`: {
      const resource = params.resource ?? "text";
      if (resource !== "chat" && resource !== "text")
        return unmappable(`its ${String(resource)} operations have no counterpart here`);
      return { kind: "llm", flavour: "openai_legacy" };
    }
    case `${LANGCHAIN}chainLlm`:
      return { kind: "llm", flavour: "chain" };
    case `${LANGCHAIN}agent`:
      return { kind: "llm", flavour: "agent" };
  }
  if (type.startsWith(LANGCHAIN) && !isTriggerType(type)) {
    return unmappable("an n8n AI node with no counterpart here", false);
  }
  return unmappable("no counterpart here", isTriggerType(type));
}

const unmappable = (reason: string, isTrigger = false): NodeKind => ({
  kind: "unmappable",
  reason,
  isTrigger,
});

function httpKind(params: Record<string, unknown>): NodeKind {
  const contentType = params.contentType;
  if (params.sendBody === true && (contentType === "multipart-form-data" || contentType === "binaryData")) {
    return unmappable("it sends a multipart or binary body, which HTTP nodes here do not");
  }
  if (params.method === "OPTIONS" || params.requestMethod === "OPTIONS") {
    return unmappable("it sends an OPTIONS request, which HTTP nodes here do not");
  }
  const response = (params.options as { response?: { response?: { responseFormat?: string } } } | undefined)
    ?.response?.response?.responseFormat;
  if (response === "file") return unmappable("it downloads a file, which HTTP nodes here do not");
  return { kind: "http" };
}

function codeKind(params: Record<string, unknown>, version: number): NodeKind {
  const language = params.language;
  if (language === "python" || language === "pythonNative") return codeKindOf("python", params.pythonCode);
  if (language !== undefined && language !== "javaScript") {
    return unmappable(`its language (${String(language)}) has no counterpart here`);
  }
  return codeKindOf("javascript", params.jsCode ?? (version === 1 ? params.jsCode : undefined));
}

function codeKindOf(language: "javascript" | "python", code: unknown): NodeKind {
  if (typeof code !== "string" || code.trim() === "") return unmappable("it has no code");
  const problem = unsupportedCode(code, language);
  if (problem) return unmappable(`its code cannot run here: ${problem}`);
  return { kind: "code", language, code };
}

function setKind(params: Record<string, unknown>, version: number): NodeKind {
  if (version >= 3 && params.mode === "raw") {
    return typeof params.jsonOutput === "string" ? { kind: "set" } : unmappable("its JSON output is missing");
  }
  if (version >= 3 && (params.include === "selected" || params.include === "except")) {
    return unmappable("it keeps or drops a selection of the input's fields, which has no counterpart here");
  }
  return { kind: "set" };
}

/** n8n IF operations (version 2's `type:operation`) and what each becomes here. */
export const IF_OPERATORS: Record<
  string,
  { operator: string; negate?: boolean; right?: unknown } | undefined
> = {
  "string:equals": { operator: "eq" },
  "string:notEquals": { operator: "ne" },
  "string:contains": { operator: "contains" },
  "string:notContains": { operator: "not_contains" },
  "string:startsWith": { operator: "starts_with" },
  "string:notStartsWith": { operator: "starts_with", negate: true },
  "string:endsWith": { operator: "ends_with" },
  "string:notEndsWith": { operator: "ends_with", negate: true },
  "string:regex": { operator: "matches" },
  "string:notRegex": { operator: "matches", negate: true },
  "string:empty": { operator: "empty" },
  "string:notEmpty": { operator: "not_empty" },
  "number:equals": { operator: "eq" },
  "number:notEquals": { operator: "ne" },
  "number:gt": { operator: "gt" },
  "number:gte": { operator: "gte" },
  "number:lt": { operator: "lt" },
  "number:lte": { operator: "lte" },
  "number:empty": { operator: "empty" },
  "number:notEmpty": { operator: "not_empty" },
  "dateTime:equals": { operator: "eq" },
  "dateTime:notEquals": { operator: "ne" },
  "dateTime:after": { operator: "gt" },
  "dateTime:before": { operator: "lt" },
  "dateTime:afterOrEquals": { operator: "gte" },
  "dateTime:beforeOrEquals": { operator: "lte" },
  "dateTime:empty": { operator: "empty" },
  "dateTime:notEmpty": { operator: "not_empty" },
  "boolean:true": { operator: "eq", right: true },
  "boolean:false": { operator: "eq", right: false },
  "boolean:equals": { operator: "eq" },
  "boolean:notEquals": { operator: "ne" },
  "boolean:empty": { operator: "empty" },
  "boolean:notEmpty": { operator: "not_empty" },
  "array:contains": { operator: "contains" },
  "array:notContains": { operator: "not_contains" },
  "array:empty": { operator: "empty" },
  "array:notEmpty": { operator: "not_empty" },
  "object:empty": { operator: "empty" },
  "object:notEmpty": { operator: "not_empty" },
  // exists: not null or undefined; here the closest is "not empty", which also fails for "".
  "any:exists": { operator: "not_empty" },
  "any:notExists": { operator: "empty" },
};

/** n8n IF version 1's operations by value type, as version 2 names them. */
export const IF_V1_OPERATIONS: Record<string, string> = {
  equal: "equals",
  notEqual: "notEquals",
  contains: "contains",
  notContains: "notContains",
  startsWith: "startsWith",
  notStartsWith: "notStartsWith",
  endsWith: "endsWith",
  notEndsWith: "notEndsWith",
  isEmpty: "empty",
  isNotEmpty: "notEmpty",
  regex: "regex",
  notRegex: "notRegex",
  smaller: "lt",
  smallerEqual: "lte",
  larger: "gt",
  largerEqual: "gte",
  after: "after",
  before: "before",
};

/** One comparison of an IF node, whichever version wrote it. */
export interface IfComparison {
  left: unknown;
  right: unknown;
  type: string;
  operation: string;
}

/**
 * The comparisons of an IF node and how they combine.
 *
 * @example ifComparisons(params, 2) // { combinator: "and", comparisons: [{ left: "={{ $json.n }}", … }] }
 */
export function ifComparisons(
  params: Record<string, unknown>,
  version: number,
): { combinator: "and" | "or"; comparisons: IfComparison[]; caseSensitive: boolean } {
  const conditions = (params.conditions ?? {}) as Record<string, unknown>;
  if (version >= 2) {
    const list = Array.isArray(conditions.conditions) ? conditions.conditions : [];
    const options = (conditions.options ?? {}) as { caseSensitive?: boolean };
    return {
      combinator: conditions.combinator === "or" ? "or" : "and",
      caseSensitive: options.caseSensitive !== false,
      comparisons: list.map((entry) => {
        const condition = (entry ?? {}) as {
          leftValue?: unknown;
          rightValue?: unknown;
          operator?: { type?: string; operation?: string };
        };
        return {
          left: condition.leftValue ?? "",
          right: condition.rightValue,
          type: condition.operator?.type ?? "string",
          operation: condition.operator?.operation ?? "equals",
        };
      }),
    };
  }
  const comparisons: IfComparison[] = [];
  for (const type of ["string", "number", "boolean", "dateTime"]) {
    const list = Array.isArray(conditions[type]) ? (conditions[type] as unknown[]) : [];
    for (const entry of list) {
      const condition = (entry ?? {}) as { value1?: unknown; value2?: unknown; operation?: string };
      const operation = condition.operation ?? (type === "boolean" ? "equal" : "equal");
      comparisons.push({
        left: condition.value1 ?? "",
        right: condition.value2,
        type,
        operation: IF_V1_OPERATIONS[operation] ?? operation,
      });
    }
  }
  return { combinator: params.combineOperation === "any" ? "or" : "and", comparisons, caseSensitive: true };
}

function ifKind(params: Record<string, unknown>, version: number): NodeKind {
  const { comparisons } = ifComparisons(params, version);
  if (comparisons.length === 0) return unmappable("it has no conditions");
  for (const comparison of comparisons) {
    const mapped = IF_OPERATORS[`${comparison.type}:${comparison.operation}`];
    if (!mapped) {
      return unmappable(
        `its comparison "${comparison.type} ${comparison.operation}" has no counterpart here`,
      );
    }
    if (mapped.negate && comparisons.length > 1) {
      return unmappable(
        `its comparison "${comparison.type} ${comparison.operation}" can be expressed here only as the IF's only comparison`,
      );
    }
  }
  return { kind: "if" };
}
