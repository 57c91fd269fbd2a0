// @vitest-environment happy-dom
import { cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it, type Mock, vi } from "vitest";
import type { EditorShortcut } from "./shortcuts.ts";
import { useEditorShortcuts } from "./useEditorShortcuts.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

function handlers(): Record<EditorShortcut, Mock<() => void>> {
  const names: EditorShortcut[] = ["select-all", "clear-selection", "undo", "redo", "copy", "paste"];
  return Object.fromEntries(names.map((name) => [name, vi.fn<() => void>()])) as Record<
    EditorShortcut,
    Mock<() => void>
  >;
}

function press(target: Element, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("useEditorShortcuts", () => {
  it("calls the shortcut's handler for a key pressed in the editor and replaces the browser's select-all", () => {
    document.body.innerHTML = `<div class="editor"><div id="pane"></div></div>`;
    const calls = handlers();
    renderHook(() => useEditorShortcuts(calls));
    const pane = document.getElementById("pane") as HTMLElement;
    const event = press(pane, "a", { ctrlKey: true });
    expect(calls["select-all"]).toHaveBeenCalledOnce();
    expect(event.defaultPrevented).toBe(true);
    expect(press(pane, "c", { metaKey: true }).defaultPrevented).toBe(false);
    expect(calls.copy).toHaveBeenCalledOnce();
  });

  it("leaves keys typed in a text field alone", () => {
    document.body.innerHTML = `<div class="editor"><input id="name"></div>`;
    const calls = handlers();
    renderHook(() => useEditorShortcuts(calls));
    const event = press(document.getElementById("name") as HTMLElement, "z", { ctrlKey: true });
    expect(calls.undo).not.toHaveBeenCalled();
    expect(event.defaultPrevented).toBe(false);
  });

  it("calls the handlers of the latest render, and stops listening when unmounted", () => {
    const first = handlers();
    const second = handlers();
    const { rerender, unmount } = renderHook((calls) => useEditorShortcuts(calls), { initialProps: first });
    rerender(second);
    press(document.body, "z", { ctrlKey: true });
    expect(first.undo).not.toHaveBeenCalled();
    expect(second.undo).toHaveBeenCalledOnce();
    unmount();
    press(document.body, "z", { ctrlKey: true });
    expect(second.undo).toHaveBeenCalledOnce();
  });

  it("ignores a key another handler already took", () => {
    const calls = handlers();
    renderHook(() => useEditorShortcuts(calls));
    document.body.addEventListener("keydown", (event) => event.preventDefault(), { once: true });
    press(document.body, "Escape");
    expect(calls["clear-selection"]).not.toHaveBeenCalled();
  });
});
