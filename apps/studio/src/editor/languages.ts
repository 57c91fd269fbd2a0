/** The languages the code editor knows; the first four are the sandbox's. */
export type CodeLanguage = "python" | "javascript" | "go" | "rust" | "json" | "text";

export const SANDBOX_LANGUAGES = ["python", "javascript", "go", "rust"] as const;
export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];

/**
 * What a new program in each language starts from: the entry point the sandbox calls, with the
 * signature it requires (docs/workflows.md, "Code").
 */
export const CODE_TEMPLATES: Record<SandboxLanguage, string> = {
  python: `def main(inputs: dict) -> dict:
    # inputs: this node's inputs by name. Return an object with the declared outputs.
    return {"result": inputs.get("value")}
`,
  javascript: `function main(inputs) {
  // inputs: this node's inputs by name. Return an object with the declared outputs (async works too).
  return { result: inputs.value };
}
`,
  go: `func Main(inputs map[string]any) (map[string]any, error) {
	// inputs: this node's inputs by name. Return the declared outputs, or an error to fail the node.
	return map[string]any{"result": inputs["value"]}, nil
}
`,
  rust: `fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String> {
    // inputs: this node's inputs by name. Return the declared outputs, or Err to fail the node.
    Ok(serde_json::json!({ "result": inputs["value"] }))
}
`,
};

/**
 * What an agent's new code tool starts from: the same entry points, reading the arguments the
 * model passes (described by the tool's parameters) instead of a node's inputs.
 */
export const TOOL_CODE_TEMPLATES: Record<SandboxLanguage, string> = {
  python: `def main(inputs: dict) -> dict:
    # inputs: the arguments the model passed, as the tool's parameters describe them.
    return {"result": inputs.get("value")}
`,
  javascript: `function main(inputs) {
  // inputs: the arguments the model passed, as the tool's parameters describe them (async works too).
  return { result: inputs.value };
}
`,
  go: `func Main(inputs map[string]any) (map[string]any, error) {
	// inputs: the arguments the model passed. Return an object, or an error the model reads.
	return map[string]any{"result": inputs["value"]}, nil
}
`,
  rust: `fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String> {
    // inputs: the arguments the model passed. Return an object, or Err with what the model reads.
    Ok(serde_json::json!({ "result": inputs["value"] }))
}
`,
};

/** The entry point of each language, as the sandbox calls it. */
export const ENTRY_POINTS: Record<SandboxLanguage, string> = {
  python: "def main(inputs: dict) -> dict",
  javascript: "function main(inputs)",
  go: "func Main(inputs map[string]any) (map[string]any, error)",
  rust: "fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>",
};

/**
 * The code to show after switching language: the new language's template when the old code was
 * empty or still an untouched template, else the user's code as it is (never thrown away).
 */
export function codeAfterLanguageChange(
  code: string,
  next: SandboxLanguage,
  templates: Record<SandboxLanguage, string> = CODE_TEMPLATES,
): string {
  const isUntouched = code.trim() === "" || Object.values(templates).some((t) => t.trim() === code.trim());
  return isUntouched ? templates[next] : code;
}

/** The user's line a run's error points at: the sandbox ends its message with "(line N)". */
export function errorLine(message: string | undefined | null): number | undefined {
  const match = message ? /\(line (\d+)\)\s*$/.exec(message) : null;
  return match ? Number(match[1]) : undefined;
}
