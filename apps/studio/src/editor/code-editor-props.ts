import type { CodeLanguage } from "./languages.ts";

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  language: CodeLanguage;
  /** The accessible name; also shown above the editor. */
  label: string;
  /** A 1-based line to mark as the one the last run failed on. */
  errorLine?: number | undefined;
  /** Called when the editor loses focus (JSON fields parse then). */
  onBlur?: () => void;
  minLines?: number;
  /** A message about the field (the API's, or the form's own check), shown under it instead of the hint. */
  error?: string | undefined;
}
