import type { ApiError } from "../api/client.ts";
import { Field } from "../ui/ui.tsx";
import type { ModelInput } from "./queries.ts";

/** What the user typed per input; an input left out is sent as nothing, so the model's default applies. */
export type InputValues = Record<string, string | boolean>;

/** Inputs shown up front; the rest sit under "More inputs". */
export const isPrimaryInput = (input: ModelInput) => input.is_required || input.name === "prompt";

/**
 * Turns the typed values into the model's input: numbers parsed, JSON for arrays and objects.
 * Throws with the field's title when a value cannot be read.
 */
export function toModelInput(inputs: ModelInput[], values: InputValues): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const input of inputs) {
    const value = values[input.name];
    if (value === undefined || value === "") continue;
    if (typeof value === "boolean") {
      result[input.name] = value;
      continue;
    }
    if (input.type === "integer" || input.type === "number") {
      const number = Number(value);
      if (!Number.isFinite(number)) throw new Error(`${input.title} must be a number.`);
      result[input.name] = number;
    } else if (input.type === "array" || input.type === "object") {
      try {
        result[input.name] = JSON.parse(value);
      } catch {
        throw new Error(`${input.title} must be JSON.`);
      }
    } else if (input.enum && typeof input.enum[0] === "number") {
      result[input.name] = Number(value);
    } else {
      result[input.name] = value;
    }
  }
  return result;
}

/** One labelled control per model input, chosen from the input's type, enum and bounds. */
export function InputFields({
  inputs,
  values,
  onChange,
  error,
}: {
  inputs: ModelInput[];
  values: InputValues;
  onChange: (name: string, value: string | boolean) => void;
  error: ApiError | undefined;
}) {
  return (
    <>
      {inputs.map((input) => (
        <InputField
          key={input.name}
          input={input}
          value={values[input.name]}
          onChange={(value) => onChange(input.name, value)}
          error={error?.fieldMessage(`input.${input.name}`)}
        />
      ))}
    </>
  );
}

function InputField({
  input,
  value,
  onChange,
  error,
}: {
  input: ModelInput;
  value: string | boolean | undefined;
  onChange: (value: string | boolean) => void;
  error: string | undefined;
}) {
  const label = input.is_required ? `${input.title} (required)` : input.title;
  const hint = hintOf(input);
  const fallback = input.default === null || input.default === undefined ? "" : String(input.default);

  if (input.type === "boolean") {
    const checked = typeof value === "boolean" ? value : input.default === true;
    return (
      <div className="field">
        <label className="inline">
          <input
            type="checkbox"
            name={input.name}
            checked={checked}
            onChange={(e) => onChange(e.target.checked)}
          />
          {input.title}
        </label>
        {error ? <span className="field-error">{error}</span> : null}
        {!error && input.description ? <span className="field-hint">{input.description}</span> : null}
      </div>
    );
  }
  if (input.enum) {
    return (
      <Field label={label} error={error} {...(hint ? { hint } : {})}>
        <select
          name={input.name}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">{fallback ? `Default (${fallback})` : "Default"}</option>
          {input.enum.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      </Field>
    );
  }
  const text = typeof value === "string" ? value : "";
  if (input.type === "integer" || input.type === "number") {
    return (
      <Field label={label} error={error} {...(hint ? { hint } : {})}>
        <input
          name={input.name}
          type="number"
          inputMode={input.type === "integer" ? "numeric" : "decimal"}
          step={input.type === "integer" ? 1 : "any"}
          {...(input.minimum !== null ? { min: input.minimum } : {})}
          {...(input.maximum !== null ? { max: input.maximum } : {})}
          placeholder={fallback}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          required={input.is_required}
        />
      </Field>
    );
  }
  if (input.type === "array" || input.type === "object") {
    return (
      <Field label={label} error={error} hint={hint ?? "JSON"}>
        <textarea
          name={input.name}
          className="code"
          placeholder={input.default === null ? "" : JSON.stringify(input.default)}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          required={input.is_required}
        />
      </Field>
    );
  }
  if (input.name === "prompt" || input.name.endsWith("_prompt")) {
    return (
      <Field label={label} error={error} {...(hint ? { hint } : {})}>
        <textarea
          name={input.name}
          rows={input.name === "prompt" ? 4 : 2}
          placeholder={fallback}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          required={input.is_required}
        />
      </Field>
    );
  }
  return (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      <input
        name={input.name}
        type={input.format === "uri" ? "url" : "text"}
        placeholder={input.format === "uri" ? "https://…" : fallback}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        required={input.is_required}
      />
    </Field>
  );
}

function hintOf(input: ModelInput): string | undefined {
  const bounds =
    input.minimum !== null && input.maximum !== null
      ? `${input.minimum}–${input.maximum}`
      : input.minimum !== null
        ? `at least ${input.minimum}`
        : input.maximum !== null
          ? `at most ${input.maximum}`
          : "";
  const parts = [input.description, bounds].filter(Boolean);
  return parts.length ? parts.join(" · ") : undefined;
}
