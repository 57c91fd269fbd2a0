/** What a key press asks of the workflow editor. */
export type EditorShortcut = "select-all" | "clear-selection" | "undo" | "redo" | "copy" | "paste";

type KeyPress = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey">;

/**
 * The editor shortcut a key press means, or null. Ctrl and ⌘ are the same modifier, so the
 * shortcuts are the same on every platform; redo is both Ctrl+Shift+Z and Ctrl+Y.
 * @example shortcutOf({ key: "z", ctrlKey: true, metaKey: false, shiftKey: true }) // "redo"
 */
export function shortcutOf(press: KeyPress): EditorShortcut | null {
  if (press.key === "Escape") return "clear-selection";
  if (!(press.ctrlKey || press.metaKey)) return null;
  switch (press.key.toLowerCase()) {
    case "a":
      return "select-all";
    case "z":
      return press.shiftKey ? "redo" : "undo";
    case "y":
      return "redo";
    case "c":
      return "copy";
    case "v":
      return "paste";
    default:
      return null;
  }
}

/**
 * Whether a key pressed on `target` is the canvas's to handle: pressed on the page body or inside
 * the editor, and not in a text field or the code editor (those keep their own undo, select-all
 * and clipboard), nor in a dialog or menu outside the editor.
 * @example isCanvasKeyTarget(document.body) // true
 */
export function isCanvasKeyTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target !== target.ownerDocument.body && !target.closest(".editor")) return false;
  return !(["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable);
}
