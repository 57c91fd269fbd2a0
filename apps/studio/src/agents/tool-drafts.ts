import { type SandboxLanguage, TOOL_CODE_TEMPLATES } from "../editor/languages.ts";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const EMPTY_PARAMETERS = JSON.stringify({ type: "object", properties: {} }, null, 2);

/**
 * An agent tool (other than MCP) as the editor holds it while it is being changed: JSON Schema
 * parameters as the text being typed, headers as rows, and a key that stays put while tools are
 * added and removed.
 */
export type ToolDraft = { key: string } & (
  | { type: "knowledge_search"; top_k: number | null }
  | {
      type: "code";
      name: string;
      description: string;
      language: SandboxLanguage;
      code: string;
      parametersText: string;
    }
  | {
      type: "http";
      name: string;
      description: string;
      method: HttpMethod;
      url: string;
      headers: { name: string; value: string }[];
      parametersText: string;
    }
  | { type: "workflow"; name: string; description: string; workflow_id: string }
);

export type ToolType = ToolDraft["type"];

let nextKey = 0;
const newKey = () => `tool-${++nextKey}`;

/** A new tool of a type, with the settings a person would start from. */
export function newToolDraft(type: ToolType, taken: readonly ToolDraft[]): ToolDraft {
  const name = (base: string) => {
    const names = new Set(taken.map((tool) => ("name" in tool ? tool.name : tool.type)));
    let candidate = base;
    for (let n = 2; names.has(candidate); n++) candidate = `${base}_${n}`;
    return candidate;
  };
  switch (type) {
    case "knowledge_search":
      return { key: newKey(), type, top_k: null };
    case "code":
      return {
        key: newKey(),
        type,
        name: name("run_code"),
        description: "",
        language: "python",
        code: TOOL_CODE_TEMPLATES.python,
        parametersText: JSON.stringify(
          { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
          null,
          2,
        ),
      };
    case "http":
      return {
        key: newKey(),
        type,
        name: name("call_api"),
        description: "",
        method: "GET",
        url: "",
        headers: [],
        parametersText: EMPTY_PARAMETERS,
      };
    case "workflow":
      return { key: newKey(), type, name: name("run_workflow"), description: "", workflow_id: "" };
  }
}

/** The API's tool as a draft; MCP tools (edited by McpToolPicker) and unknown kinds answer null. */
export function toToolDraft(tool: unknown): ToolDraft | null {
  if (typeof tool !== "object" || tool === null) return null;
  const t = tool as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const parametersText = (value: unknown) =>
    value === undefined ? EMPTY_PARAMETERS : JSON.stringify(value, null, 2);
  switch (t.type) {
    case "knowledge_search":
      return { key: newKey(), type: "knowledge_search", top_k: typeof t.top_k === "number" ? t.top_k : null };
    case "code":
      return {
        key: newKey(),
        type: "code",
        name: text(t.name),
        description: text(t.description),
        language: (t.language as SandboxLanguage) ?? "python",
        code: text(t.code),
        parametersText: parametersText(t.parameters),
      };
    case "http":
      return {
        key: newKey(),
        type: "http",
        name: text(t.name),
        description: text(t.description),
        method: (t.method as HttpMethod) ?? "GET",
        url: text(t.url),
        headers: Object.entries((t.headers as Record<string, string> | undefined) ?? {}).map(
          ([name, value]) => ({ name, value }),
        ),
        parametersText: parametersText(t.parameters),
      };
    case "workflow":
      return {
        key: newKey(),
        type: "workflow",
        name: text(t.name),
        description: text(t.description),
        workflow_id: text(t.workflow_id),
      };
    default:
      return null;
  }
}

/** Why a draft's parameters cannot be sent, or null when they are a JSON object. */
export function parametersProblem(textValue: string): string | null {
  try {
    const value: unknown = JSON.parse(textValue);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return 'must be a JSON object (a JSON Schema such as {"type": "object", "properties": {…}})';
    return null;
  } catch (error) {
    return `is not valid JSON: ${(error as Error).message}`;
  }
}

/**
 * The draft as the API takes it. Callers check `parametersProblem` first: the parameters text is
 * parsed here.
 */
export function fromToolDraft(draft: ToolDraft): Record<string, unknown> {
  switch (draft.type) {
    case "knowledge_search":
      return { type: draft.type, ...(draft.top_k === null ? {} : { top_k: draft.top_k }) };
    case "code":
      return {
        type: draft.type,
        name: draft.name,
        description: draft.description,
        language: draft.language,
        code: draft.code,
        parameters: JSON.parse(draft.parametersText) as unknown,
      };
    case "http": {
      const headers = draft.headers.filter((header) => header.name.trim() !== "");
      return {
        type: draft.type,
        name: draft.name,
        description: draft.description,
        method: draft.method,
        url: draft.url,
        ...(headers.length
          ? { headers: Object.fromEntries(headers.map((header) => [header.name.trim(), header.value])) }
          : {}),
        parameters: JSON.parse(draft.parametersText) as unknown,
      };
    }
    case "workflow":
      return {
        type: draft.type,
        name: draft.name,
        description: draft.description,
        workflow_id: draft.workflow_id,
      };
  }
}

/** The API's field paths of one tool, so the form can show each beside its input. */
export function toolFieldPaths(index: number): string[] {
  return [
    "",
    ".type",
    ".name",
    ".description",
    ".language",
    ".code",
    ".parameters",
    ".method",
    ".url",
    ".headers",
    ".workflow_id",
    ".top_k",
  ].map((field) => `tools[${index}]${field}`);
}
