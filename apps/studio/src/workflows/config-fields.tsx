import { useState } from "react";
import { CodeEditor } from "../editor/CodeEditor.tsx";
import type { CodeLanguage } from "../editor/languages.ts";
import { Button, Field } from "../ui/ui.tsx";

/** The fields of the node settings panel; text fields take `{{node.field}}` templates. */

export type Row = Record<string, unknown>;

export function TemplateField({
  label,
  value,
  variables,
  onChange,
  multiline = false,
  codeLanguage,
}: {
  label: string;
  value: string;
  variables: string[];
  onChange: (value: string) => void;
  multiline?: boolean;
  /** Edit in the code editor with this language's highlighting (an HTTP body as JSON). */
  codeLanguage?: CodeLanguage;
}) {
  return (
    <div className="template-field">
      {codeLanguage ? (
        <CodeEditor label={label} language={codeLanguage} value={value} onChange={onChange} minLines={5} />
      ) : (
        <Field label={label}>
          {multiline ? (
            <textarea value={value} onChange={(e) => onChange(e.target.value)} />
          ) : (
            <input value={value} onChange={(e) => onChange(e.target.value)} />
          )}
        </Field>
      )}
      <VariablePicker
        variables={variables}
        onPick={(variable) => onChange(`${value}${variable}`)}
        label={label}
      />
    </div>
  );
}

function VariablePicker({
  variables,
  onPick,
  label,
}: {
  variables: string[];
  onPick: (v: string) => void;
  label: string;
}) {
  if (variables.length === 0) return null;
  return (
    <select
      className="variable-picker"
      aria-label={`Insert a variable into ${label}`}
      value=""
      onChange={(e) => {
        if (e.target.value) onPick(e.target.value);
      }}
    >
      <option value="">+ variable</option>
      {variables.map((variable) => (
        <option key={variable} value={variable}>
          {variable}
        </option>
      ))}
    </select>
  );
}

/** A JSON value edited as text: parsed when the editor loses focus; invalid JSON says why and is kept. */
export function JsonField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <CodeEditor
        label={label}
        language="json"
        value={text}
        onChange={setText}
        minLines={4}
        onBlur={() => {
          try {
            onChange(JSON.parse(text));
            setError(null);
          } catch (caught) {
            // The stored value is unchanged until the text parses.
            setError(`Not valid JSON, not applied: ${(caught as Error).message}`);
          }
        }}
      />
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

interface Column {
  key: string;
  label: string;
  options?: string[];
  checkbox?: boolean;
  variables?: string[];
}

export function RowsEditor({
  label,
  rows,
  blank,
  columns,
  onChange,
}: {
  label: string;
  rows: Row[];
  blank: Row;
  columns: Column[];
  onChange: (rows: Row[]) => void;
}) {
  const setCell = (index: number, key: string, value: unknown) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, [key]: value } : row)));
  return (
    <fieldset className="rows">
      <legend>{label}</legend>
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own while being edited
        <div className="rows-row" key={index}>
          {columns.map((column) =>
            column.checkbox ? (
              <label key={column.key} className="inline">
                <input
                  type="checkbox"
                  checked={Boolean(row[column.key])}
                  onChange={(e) => setCell(index, column.key, e.target.checked)}
                />
                {column.label}
              </label>
            ) : column.options ? (
              <select
                key={column.key}
                aria-label={`${label} ${index + 1} ${column.label}`}
                value={String(row[column.key] ?? "")}
                onChange={(e) => setCell(index, column.key, e.target.value)}
              >
                {column.options.map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </select>
            ) : (
              <span key={column.key} className="rows-cell">
                <input
                  aria-label={`${label} ${index + 1} ${column.label}`}
                  placeholder={column.label}
                  value={String(row[column.key] ?? "")}
                  onChange={(e) => setCell(index, column.key, e.target.value)}
                />
                {column.variables ? (
                  <VariablePicker
                    variables={column.variables}
                    label={`${label} ${index + 1} ${column.label}`}
                    onPick={(v) => setCell(index, column.key, `${String(row[column.key] ?? "")}${v}`)}
                  />
                ) : null}
              </span>
            ),
          )}
          <button
            type="button"
            className="btn btn-secondary"
            aria-label={`Remove ${label} ${index + 1}`}
            onClick={() => onChange(rows.filter((_, i) => i !== index))}
          >
            ×
          </button>
        </div>
      ))}
      <Button variant="secondary" onClick={() => onChange([...rows, { ...blank }])}>
        Add
      </Button>
    </fieldset>
  );
}
