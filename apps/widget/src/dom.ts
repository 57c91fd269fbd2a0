// The one way this client makes DOM: elements, properties and text nodes. Nothing here parses HTML,
// so no text (a model's answer, a conversation title, an app's name) can ever become markup.

type Child = Node | string | null | undefined | false;

/** Properties set on the element; `aria-*`, `data-*`, `role` and `for` go through setAttribute. */
type Props = Record<string, string | number | boolean | EventListener | undefined>;

/**
 * Creates an element with properties, listeners (`onclick`, …) and children (strings become text).
 *
 * @example h("button", { type: "button", "aria-label": "Close", onclick: close }, "×")
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name.includes("-") || name === "role" || name === "for")
      element.setAttribute(name, value === true ? "" : String(value));
    else (element as unknown as Record<string, unknown>)[name] = value;
  }
  append(element, ...children);
  return element;
}

/**
 * Appends children to a node, strings as text nodes.
 *
 * @example append(list, h("li", {}, "one"), "two")
 */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/**
 * Gives a document or a shadow root its style sheet. A constructed sheet, where the browser has them,
 * is not an inline `<style>`: a host page whose Content-Security-Policy refuses inline styles still
 * shows the widget styled.
 *
 * @example adoptStyles(shadowRoot, WIDGET_CSS)
 */
export function adoptStyles(root: Document | ShadowRoot, css: string): void {
  if (
    "adoptedStyleSheets" in root &&
    typeof CSSStyleSheet === "function" &&
    "replaceSync" in CSSStyleSheet.prototype
  ) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    return;
  }
  const style = document.createElement("style");
  style.textContent = css;
  (root instanceof Document ? root.head : root).appendChild(style);
}

let nextId = 0;

/**
 * A document-unique id for aria-controls / aria-describedby pairs.
 *
 * @example const id = uniqueId("cite"); // "aw-cite-3"
 */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `aw-${prefix}-${nextId}`;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * A 24×24 icon drawn by one path, hidden from assistive technology (its button carries the name).
 * Drawn rather than an emoji: not every system has an emoji font.
 *
 * @example h("button", { "aria-label": "Open chat" }, svgIcon(CHAT_PATH))
 */
export function svgIcon(path: string): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const shape = document.createElementNS(SVG_NS, "path");
  shape.setAttribute("d", path);
  svg.appendChild(shape);
  return svg;
}
