import { useEffect, useRef } from "react";
import { type EditorShortcut, isCanvasKeyTarget, shortcutOf } from "./shortcuts.ts";

/** Shortcuts whose browser default (select the page's text, the browser's undo) is replaced. */
const REPLACES_DEFAULT = new Set<EditorShortcut>(["select-all", "undo", "redo"]);

/**
 * Calls the handler of each editor shortcut pressed on the page. The listener sits on the window,
 * so the shortcuts work right after a click on the canvas's empty pane (which takes no focus) as
 * well as with a node focused; it is added once and always calls the latest handlers.
 * @example useEditorShortcuts({ undo, redo, copy, paste, "select-all": selectAll, "clear-selection": clear })
 */
export function useEditorShortcuts(handlers: Record<EditorShortcut, () => void>): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.defaultPrevented || !isCanvasKeyTarget(event.target)) return;
      const shortcut = shortcutOf(event);
      if (!shortcut) return;
      if (REPLACES_DEFAULT.has(shortcut)) event.preventDefault();
      latest.current[shortcut]();
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);
}
