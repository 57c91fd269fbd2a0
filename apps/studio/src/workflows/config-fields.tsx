import { Button, Field } from "../ui/ui.tsx";

/** The fields of the node settings panel; text fields take `{{node.field}}` templates. */

export type Row = Record<string, unknown>;

export function TemplateField({
  label,
  value,
  variables,
  onChange,
  multiline = false,
}: {
  label: string;
  value: string;
  variables: string[];
  onChange: (value: string) => void;
  multiline?: boolean;
}) {
  return (
    <div className="template-field">
      <Field label={label}>
        {multiline ? (
          <textarea value={value} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input value={value} onChange={(e) => onChange(e.target.value)} />
        )}
      </Field>
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

export function JsonField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  return (
    <Field label={label}>
      <textarea
        className="code"
        defaultValue={JSON.stringify(value, null, 2)}
        onBlur={(e) => {
          try {
            onChange(JSON.parse(e.target.value));
          } catch {
            // Invalid JSON stays in the box until corrected; the stored value is unchanged.
          }
        }}
      />
    </Field>
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
