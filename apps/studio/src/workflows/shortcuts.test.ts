// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { isCanvasKeyTarget, shortcutOf } from "./shortcuts.ts";

const press = (key: string, modifiers: { ctrl?: boolean; meta?: boolean; shift?: boolean } = {}) => ({
  key,
  ctrlKey: modifiers.ctrl ?? false,
  metaKey: modifiers.meta ?? false,
  shiftKey: modifiers.shift ?? false,
});

describe("shortcutOf", () => {
  it.each([
    [press("a", { ctrl: true }), "select-all"],
    [press("A", { meta: true, shift: true }), "select-all"],
    [press("Escape"), "clear-selection"],
    [press("z", { ctrl: true }), "undo"],
    [press("z", { meta: true }), "undo"],
    [press("Z", { ctrl: true, shift: true }), "redo"],
    [press("y", { ctrl: true }), "redo"],
    [press("c", { meta: true }), "copy"],
    [press("v", { ctrl: true }), "paste"],
  ])("maps %o to %s", (key, shortcut) => {
    expect(shortcutOf(key)).toBe(shortcut);
  });

  it("ignores letters without Ctrl or ⌘, and other keys with them", () => {
    expect(shortcutOf(press("a"))).toBeNull();
    expect(shortcutOf(press("z", { shift: true }))).toBeNull();
    expect(shortcutOf(press("s", { ctrl: true }))).toBeNull();
  });
});

describe("isCanvasKeyTarget", () => {
  it("takes keys pressed on the page body or inside the editor", () => {
    document.body.innerHTML = `<div class="editor"><div id="node" tabindex="0"></div></div><div id="outside"></div>`;
    expect(isCanvasKeyTarget(document.body)).toBe(true);
    expect(isCanvasKeyTarget(document.getElementById("node"))).toBe(true);
    expect(isCanvasKeyTarget(document.getElementById("outside"))).toBe(false);
  });

  it("leaves text fields and editable text in the editor their own keys", () => {
    document.body.innerHTML = `<div class="editor"><input id="i"><textarea id="t"></textarea><select id="s"></select><div id="c" contenteditable="true"></div></div>`;
    for (const id of ["i", "t", "s", "c"])
      expect(isCanvasKeyTarget(document.getElementById(id)), id).toBe(false);
  });

  it("ignores a press with no element as its target", () => {
    expect(isCanvasKeyTarget(null)).toBe(false);
    expect(isCanvasKeyTarget(window)).toBe(false);
  });
});
