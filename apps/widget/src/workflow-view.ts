// A workflow app: a form built from the Start node's inputs, the run's progress as its nodes report
// it, and the outputs.
import { type ApiClient, type AppConfig, type AppInput, describeError } from "./api.ts";
import { h, uniqueId } from "./dom.ts";
import { renderOutput } from "./outputs.ts";
import { applyTheme } from "./theme.ts";

interface Field {
  input: AppInput;
  control: HTMLInputElement | HTMLTextAreaElement;
  error: HTMLElement;
}

/**
 * Reads one field: its value, `undefined` when an optional field is left empty, or an error to show.
 *
 * @example readField({ input: { name: "n", type: "number", required: true }, control, error }) // { value: 3 }
 */
export function readField(field: Pick<Field, "input" | "control">): { value?: unknown; error?: string } {
  const { input, control } = field;
  if (input.type === "boolean") return { value: (control as HTMLInputElement).checked };
  const raw = control.value;
  if (!raw.trim()) return input.required ? { error: "This field is required." } : {};
  if (input.type === "string") return { value: raw };
  if (input.type === "number") {
    const number = Number(raw);
    return Number.isFinite(number) ? { value: number } : { error: "Enter a number." };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` };
  }
  const isArray = Array.isArray(parsed);
  if (input.type === "array" && !isArray) return { error: "Enter a JSON array, such as [1, 2]." };
  if (input.type === "object" && (isArray || typeof parsed !== "object" || parsed === null))
    return { error: 'Enter a JSON object, such as {"key": "value"}.' };
  return { value: parsed };
}

/** A run's or a node's error (`{ code, message }`) in words. */
function errorText(error: unknown): string {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : "unknown error";
}

function fieldFor(input: AppInput): { element: HTMLElement; field: Field } {
  const id = uniqueId("field");
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [input.description ? hintId : "", errorId].filter(Boolean).join(" ");
  const error = h("p", { id: errorId, className: "error", hidden: true });
  const hint = input.description ? h("p", { id: hintId, className: "hint" }, input.description) : null;
  const label = `${input.name}${input.required ? " (required)" : ""}`;
  if (input.type === "boolean") {
    const control = h("input", { type: "checkbox", id, "aria-describedby": describedBy });
    return {
      element: h("div", { className: "field check" }, control, h("label", { for: id }, label), hint, error),
      field: { input, control, error },
    };
  }
  const isJson = input.type === "object" || input.type === "array";
  const control =
    input.type === "number"
      ? h("input", { type: "number", step: "any", id, "aria-describedby": describedBy })
      : h("textarea", {
          id,
          rows: isJson ? 4 : 2,
          className: isJson ? "json" : "",
          placeholder: input.type === "array" ? "[]" : input.type === "object" ? "{}" : "",
          spellcheck: !isJson,
          "aria-describedby": describedBy,
        });
  if (input.required) control.setAttribute("aria-required", "true");
  return {
    element: h("div", { className: "field" }, h("label", { for: id }, label), hint, control, error),
    field: { input, control, error },
  };
}

/**
 * The form page of a workflow app.
 *
 * @example document.body.append(createWorkflowView(api, config));
 */
export function createWorkflowView(api: ApiClient, config: AppConfig): HTMLElement {
  const built = config.inputs.map(fieldFor);
  const fields = built.map((item) => item.field);
  const runButton = h("button", { type: "submit", className: "btn primary" }, "Run");
  const alert = h("p", { className: "alert", role: "alert" });
  const progress = h("ol", { className: "progress", "aria-label": "Progress", "aria-live": "polite" });
  const outputs = h("div", { className: "outputs", "aria-live": "polite" });
  let isRunning = false;

  const form = h(
    "form",
    { noValidate: true, "aria-label": config.title || "Run", onsubmit: (event: Event) => void submit(event) },
    ...built.map((item) => item.element),
    runButton,
  );

  async function submit(event: Event) {
    event.preventDefault();
    if (isRunning) return;
    const inputs: Record<string, unknown> = {};
    let firstInvalid: Field | null = null;
    for (const field of fields) {
      const { value, error } = readField(field);
      field.error.textContent = error ?? "";
      field.error.hidden = !error;
      field.control.setAttribute("aria-invalid", String(Boolean(error)));
      if (error) firstInvalid ??= field;
      else if (value !== undefined) inputs[field.input.name] = value;
    }
    if (firstInvalid) {
      firstInvalid.control.focus();
      return;
    }
    isRunning = true;
    runButton.disabled = true;
    runButton.textContent = "Running…";
    alert.textContent = "";
    progress.replaceChildren();
    outputs.replaceChildren();
    const steps = new Map<string, HTMLElement>();
    const step = (data: Record<string, unknown>, text: string, state = "") => {
      const id = String(data.node_id);
      const item = steps.get(id) ?? h("li");
      item.className = state;
      item.textContent = text;
      if (!steps.has(id)) {
        steps.set(id, item);
        progress.append(item);
      }
    };
    try {
      await api.run(inputs, ({ event, data }) => {
        const name = typeof data.title === "string" && data.title ? data.title : String(data.node_id);
        if (event === "node_started") step(data, `Running ${name}…`);
        else if (event === "node_skipped") step(data, `${name}: skipped`, "skipped");
        else if (event === "node_finished") {
          const isFailed = data.status === "failed";
          // The public API tells an end user which step ran and how it ended, not its details; the
          // time and error are shown when a stream carries them.
          const seconds =
            typeof data.elapsed_ms === "number" ? ` in ${(data.elapsed_ms / 1000).toFixed(1)} s` : "";
          const reason = isFailed && data.error ? ` (${errorText(data.error)})` : "";
          step(
            data,
            isFailed ? `${name}: failed${reason}` : `${name}: done${seconds}`,
            isFailed ? "failed" : "done",
          );
        } else if (event === "run_finished") {
          if (data.status !== "succeeded")
            alert.textContent = `The run did not finish: ${errorText(data.error)}`;
          const values = (data.outputs ?? {}) as Record<string, unknown>;
          outputs.replaceChildren(
            h("h2", {}, "Result"),
            ...Object.entries(values).map(([key, value]) => renderOutput(key, value)),
          );
        }
      });
    } catch (error) {
      alert.textContent = describeError(error, api.isIdentified);
    } finally {
      isRunning = false;
      runButton.disabled = false;
      runButton.textContent = "Run";
    }
  }

  const page = h(
    "main",
    { className: "theme form-page" },
    h(
      "div",
      { className: "wrap" },
      h("h1", {}, config.title || "Run"),
      config.description ? h("p", { className: "desc" }, config.description) : null,
      form,
      alert,
      progress,
      outputs,
    ),
  );
  applyTheme(page, config.theme);
  return page;
}
