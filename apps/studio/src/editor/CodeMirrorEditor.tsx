import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import {
  Compartment,
  EditorState,
  type Extension,
  RangeSetBuilder,
  StateEffect,
  StateField,
} from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  GutterMarker,
  gutterLineClass,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";
import type { CodeEditorProps } from "./code-editor-props.ts";
import type { CodeLanguage } from "./languages.ts";

/** The indent each language's community writes (Go: tabs, as gofmt does). */
const INDENT: Record<CodeLanguage, string> = {
  python: "    ",
  javascript: "  ",
  go: "\t",
  rust: "    ",
  json: "  ",
  text: "  ",
};

/**
 * A language's parser, fetched on first use: each grammar is its own chunk, so a Python node does
 * not download the Rust, Go and JavaScript grammars.
 */
async function loadLanguage(language: CodeLanguage): Promise<Extension> {
  switch (language) {
    case "python":
      return (await import("@codemirror/lang-python")).python();
    case "javascript":
      return (await import("@codemirror/lang-javascript")).javascript();
    case "go":
      return (await import("@codemirror/lang-go")).go();
    case "rust":
      return (await import("@codemirror/lang-rust")).rust();
    case "json":
      return (await import("@codemirror/lang-json")).json();
    default:
      return [];
  }
}

// Colours from the studio's CSS variables, so the light and dark themes both read well.
const highlight = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword],
    color: "var(--code-keyword)",
  },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--code-number)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--muted)", fontStyle: "italic" },
  {
    tag: [tags.function(tags.variableName), tags.function(tags.definition(tags.variableName))],
    color: "var(--code-function)",
  },
  { tag: [tags.typeName, tags.className], color: "var(--code-type)" },
  { tag: tags.propertyName, color: "var(--code-property)" },
  { tag: tags.invalid, color: "var(--danger)" },
]);

const theme = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--panel)", fontSize: "13px" },
  ".cm-content": { fontFamily: "var(--mono, ui-monospace, monospace)", caretColor: "var(--text)" },
  ".cm-gutters": {
    backgroundColor: "var(--bg)",
    color: "var(--muted)",
    borderRight: "1px solid var(--border)",
  },
  ".cm-activeLine": { backgroundColor: "var(--code-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--code-active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--code-selection) !important",
  },
  ".cm-error-line": { backgroundColor: "var(--code-error-line)" },
  ".cm-error-gutter": { backgroundColor: "var(--danger)", color: "var(--accent-text)" },
});

const setErrorLine = StateEffect.define<number | undefined>();
const errorMarker = new (class extends GutterMarker {
  override elementClass = "cm-error-gutter";
})();

/** The failing line of the last run: a background on the line and a red line number. */
const errorLineField = StateField.define<{ line: number | undefined; decorations: DecorationSet }>({
  create: () => ({ line: undefined, decorations: Decoration.none }),
  update(value, transaction) {
    let line = value.line;
    for (const effect of transaction.effects) if (effect.is(setErrorLine)) line = effect.value;
    if (line === value.line && !transaction.docChanged) return value;
    if (line === undefined || line < 1 || line > transaction.state.doc.lines)
      return { line, decorations: Decoration.none };
    const builder = new RangeSetBuilder<Decoration>();
    const from = transaction.state.doc.line(line).from;
    builder.add(
      from,
      from,
      Decoration.line({ class: "cm-error-line", attributes: { "data-error-line": "true" } }),
    );
    return { line, decorations: builder.finish() };
  },
  provide: (field) => [
    EditorView.decorations.from(field, (value) => value.decorations),
    gutterLineClass.compute([field], (state) => {
      const { line } = state.field(field);
      if (line === undefined || line < 1 || line > state.doc.lines)
        return new RangeSetBuilder<GutterMarker>().finish();
      const builder = new RangeSetBuilder<GutterMarker>();
      const from = state.doc.line(line).from;
      builder.add(from, from, errorMarker);
      return builder.finish();
    }),
  ],
});

/** CodeMirror 6 as a controlled React field (loaded lazily by CodeEditor). */
export default function CodeMirrorEditor({
  value,
  onChange,
  language,
  labelId,
  errorLine,
  onBlur,
  minLines = 8,
}: CodeEditorProps & { labelId: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const languageSlot = useRef(new Compartment());
  const indentSlot = useRef(new Compartment());
  // The latest callbacks, read by the editor's listeners without rebuilding it.
  const callbacks = useRef({ onChange, onBlur });
  callbacks.current = { onChange, onBlur };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is built once; value, language and the error line are pushed in by the effects below
  useEffect(() => {
    if (!host.current) return;
    const created = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          indentSlot.current.of(indentUnit.of(INDENT[language])),
          languageSlot.current.of([]),
          syntaxHighlighting(highlight),
          theme,
          errorLineField,
          // tabindex changes nothing for the keyboard (the editable content is one tab stop either way)
          // but lets checkers see that a long line's horizontal scroller has focusable content.
          EditorView.contentAttributes.of({ "aria-labelledby": labelId, tabindex: "0" }),
          EditorView.theme({ ".cm-content, .cm-gutter": { minHeight: `${minLines * 1.45}em` } }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) callbacks.current.onChange(update.state.doc.toString());
          }),
          EditorView.domEventHandlers({
            blur: () => {
              callbacks.current.onBlur?.();
            },
          }),
        ],
      }),
    });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
  }, []);

  // A value set from outside (switching language, undo on the canvas) replaces the text.
  useEffect(() => {
    const current = view.current;
    if (!current || current.state.doc.toString() === value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    let isCurrent = true;
    view.current?.dispatch({ effects: indentSlot.current.reconfigure(indentUnit.of(INDENT[language])) });
    loadLanguage(language).then(
      (support) => {
        if (isCurrent) view.current?.dispatch({ effects: languageSlot.current.reconfigure(support) });
      },
      // Without its grammar the editor still edits, just without colours.
      () => undefined,
    );
    return () => {
      isCurrent = false;
    };
  }, [language]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorLine.of(errorLine) });
  }, [errorLine]);

  return <div className="code-editor" ref={host} data-language={language} />;
}
