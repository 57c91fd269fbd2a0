import { lazy, Suspense, useId } from "react";
import type { CodeEditorProps } from "./code-editor-props.ts";

// CodeMirror and its four language modes are their own chunk, fetched the first time a code field
// shows: the first screen and the canvas do not pay for it.
const CodeMirrorEditor = lazy(() => import("./CodeMirrorEditor.tsx"));

/** A code field: CodeMirror 6 with line numbers, Tab to indent (Escape, then Tab, leaves). */
export function CodeEditor(props: CodeEditorProps) {
  const id = useId();
  return (
    <div className="field code-field">
      <span className="field-label" id={`${id}-label`}>
        {props.label}
      </span>
      <Suspense
        fallback={
          <textarea
            className="code"
            aria-labelledby={`${id}-label`}
            value={props.value}
            onChange={(e) => props.onChange(e.target.value)}
            rows={props.minLines ?? 8}
          />
        }
      >
        <CodeMirrorEditor {...props} labelId={`${id}-label`} />
      </Suspense>
      {props.error ? (
        <span className="field-error" role="alert">
          {props.error}
        </span>
      ) : (
        <span className="field-hint">Tab indents; press Escape then Tab to move on.</span>
      )}
    </div>
  );
}
