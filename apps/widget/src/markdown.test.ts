// @vitest-environment happy-dom
import { readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderMarkdown, safeHref } from "./markdown.ts";

/** The rendered answer in a container, for querying. */
function render(text: string): HTMLDivElement {
  const div = document.createElement("div");
  div.appendChild(renderMarkdown(text));
  return div;
}

/** Every element's tag under the container, in document order. */
function tags(root: Element): string[] {
  return [...root.querySelectorAll("*")].map((element) => element.tagName.toLowerCase());
}

describe("markdown from an untrusted model", () => {
  it("shows raw HTML as the characters it is: no img, script or event handler reaches the DOM", () => {
    const text = [
      "<img src=x onerror=window.__pwned=1>",
      "<script>window.__pwned=1</script>",
      '<a href="javascript:window.__pwned=1">x</a> <svg onload=alert(1)>',
      "<iframe src=https://evil.example></iframe>",
    ].join("\n\n");
    const root = render(text);
    // The iframe's https URL is linked as any bare URL would be; nothing else becomes an element.
    expect(tags(root)).toEqual(["p", "p", "p", "p", "a"]);
    expect(root.querySelector("a")?.getAttribute("href")).toBe("https://evil.example/");
    expect(root.textContent).toContain("<img src=x onerror=window.__pwned=1>");
    expect(root.textContent).toContain("<script>window.__pwned=1</script>");
    expect(root.querySelector("[onerror], [onload], [href^='javascript']")).toBeNull();
  });

  it("drops javascript:, data:, vbscript: and relative targets, keeping only the words", () => {
    for (const target of [
      "javascript:window.__pwned=1",
      "JaVaScRiPt:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "/relative/path",
      "//evil.example/x",
      "file:///etc/passwd",
    ]) {
      const root = render(`[click me](${target})`);
      expect(root.querySelector("a"), target).toBeNull();
      expect(root.textContent, target).toBe("click me");
      expect(root.querySelector("span.inert")?.getAttribute("title"), target).toMatch(/^Link removed/);
    }
  });

  it("makes http, https and mailto links that open apart from the page and pass no referrer", () => {
    const root = render(
      "See [the docs](https://example.com/docs?a=1&b=2), mail [us](mailto:help@example.com).",
    );
    const [docs, mail] = [...root.querySelectorAll("a")];
    expect(docs?.getAttribute("href")).toBe("https://example.com/docs?a=1&b=2");
    expect(docs?.getAttribute("rel")).toBe("noopener noreferrer nofollow");
    expect(docs?.getAttribute("target")).toBe("_blank");
    expect(docs?.textContent).toBe("the docs");
    expect(mail?.getAttribute("href")).toBe("mailto:help@example.com");
  });

  it("never loads an image: ![alt](url) becomes a link named by its alt text, or the text alone", () => {
    const root = render("![a cat](https://cdn.example/cat.png) and ![tracker](javascript:alert(1))");
    expect(root.querySelector("img")).toBeNull();
    const link = root.querySelector("a");
    expect(link?.getAttribute("href")).toBe("https://cdn.example/cat.png");
    expect(link?.textContent).toBe("Image: a cat");
    expect(root.textContent).toBe("Image: a cat and tracker");
  });

  it("links bare URLs without swallowing the sentence's punctuation", () => {
    const root = render(
      "Go to https://example.com/a_(b). Or (https://example.org/x), or <https://example.net/y>.",
    );
    expect([...root.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual([
      "https://example.com/a_(b)",
      "https://example.org/x",
      "https://example.net/y",
    ]);
    expect(root.textContent).toBe(
      "Go to https://example.com/a_(b). Or (https://example.org/x), or https://example.net/y.",
    );
  });

  it("nests emphasis: bold with italic inside, both at once, strikethrough, and leaves snake_case alone", () => {
    const root = render("**bold *and italic* text** then ***both*** and ~~gone~~ and my_var_name and _it_");
    const strong = root.querySelector("p > strong");
    expect(strong?.textContent).toBe("bold and italic text");
    expect(strong?.querySelector("em")?.textContent).toBe("and italic");
    expect(root.querySelector("strong > em")?.textContent).toBe("and italic");
    expect([...root.querySelectorAll("strong")].map((s) => s.textContent)).toEqual([
      "bold and italic text",
      "both",
    ]);
    expect(root.querySelector("del")?.textContent).toBe("gone");
    expect(root.textContent).toContain("my_var_name");
    expect([...root.querySelectorAll("em")].map((e) => e.textContent)).toEqual(["and italic", "both", "it"]);
  });

  it("keeps unmatched markers as text: 2 * 3 * 4, a lone **, an unclosed [link](", () => {
    const root = render("2 * 3 * 4 is 24, a lone ** here, an unclosed [link](somewhere");
    expect(tags(root)).toEqual(["p"]);
    expect(root.textContent).toBe("2 * 3 * 4 is 24, a lone ** here, an unclosed [link](somewhere");
  });

  it("renders code spans and fenced blocks verbatim, markup and markdown alike", () => {
    const root = render(
      "Use `<b>**x**</b>` here.\n\n```html\n<script>alert(1)</script>\n**not bold**\n```\nafter",
    );
    expect(root.querySelector("p > code")?.textContent).toBe("<b>**x**</b>");
    expect(root.querySelector("pre > code")?.textContent).toBe("<script>alert(1)</script>\n**not bold**");
    expect(root.querySelector("script, b, strong")).toBeNull();
    expect(root.lastElementChild?.textContent).toBe("after");
  });

  it("shows a fence still streaming (not closed yet) as code", () => {
    const root = render("Here:\n```\nconst a = 1;");
    expect(root.querySelector("pre")?.textContent).toBe("const a = 1;");
  });

  it("renders paragraphs with line breaks, headings below the page's, lists nested by indentation, quotes", () => {
    const root = render(
      "# Title\n\nfirst line\nsecond line\n\n- one\n- two\n  - two a\n  - two b\n- three\n\n3. c\n4. d\n\n> quoted **bold**\n\n---",
    );
    expect(tags(root)).toEqual([
      "h3",
      "p",
      "br",
      "ul",
      "li",
      "li",
      "ul",
      "li",
      "li",
      "li",
      "ol",
      "li",
      "li",
      "blockquote",
      "p",
      "strong",
      "hr",
    ]);
    expect(root.querySelector("ul > li:nth-child(2) > ul")?.textContent).toBe("two atwo b");
    expect(root.querySelector("ol")?.getAttribute("start")).toBe("3");
  });

  it("keeps markup out of link labels and headings too", () => {
    const root = render("## <img src=x onerror=alert(1)>\n\n[<script>x</script>](https://example.com)");
    expect(root.querySelector("img, script")).toBeNull();
    expect(root.querySelector("h4")?.textContent).toBe("<img src=x onerror=alert(1)>");
    expect(root.querySelector("a")?.textContent).toBe("<script>x</script>");
  });

  it("does not nest a link inside a link's label", () => {
    const root = render("[see https://inner.example](https://outer.example)");
    expect(root.querySelectorAll("a")).toHaveLength(1);
    expect(root.querySelector("a")?.getAttribute("href")).toBe("https://outer.example/");
  });

  it("safeHref answers the normalised URL or null", () => {
    expect(safeHref("https://example.com/a b")).toBe("https://example.com/a%20b");
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c");
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("not a url")).toBeNull();
  });
});

describe("the widget's sources", () => {
  it("never parse HTML: no innerHTML, outerHTML, insertAdjacentHTML, document.write or DOMParser", () => {
    const dir = dirname(fileURLToPath(import.meta.url));
    for (const file of readdirSync(dir).filter(
      (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
    )) {
      const source = readFileSync(`${dir}/${file}`, "utf8");
      expect(source, file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/,
      );
    }
  });
});
