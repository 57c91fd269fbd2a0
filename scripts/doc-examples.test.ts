// Doc comments' `@example`s drift silently when a signature changes (one showed
// `registerChatRoutes(router, deps)` long after it was right). This reads every exported function
// with an `@example` and checks that the example calls that function with an argument count its
// parameters accept. It is a drift check on the call's shape, not a type check of the example.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

interface Documented {
  file: string;
  line: number;
  name: string;
  example: string;
  params: string;
}

/** Splits at the commas that are not inside brackets, braces, parentheses, strings or templates. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      current += char;
      if (char === "\\") current += text[++i] ?? "";
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if ("([{<".includes(char)) depth++;
    else if (")]}>".includes(char) && !(char === ">" && text[i - 1] === "=")) depth--;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (current.trim() !== "") parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

/** The text between the parenthesis at `open` and its match. */
function enclosed(text: string, open: number): string | undefined {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "(") depth++;
    else if (char === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

function documentedFunctions(): Documented[] {
  const files = execFileSync("git", ["ls-files", "apps/*/src/**.ts", "packages/*/src/**.ts"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
  const found: Documented[] = [];
  const pattern =
    /\/\*\*((?:(?!\*\/)[\s\S])*?@example(?:(?!\*\/)[\s\S])*)\*\/\s*export (?:async )?function\*? (\w+)(?:<[^(]*>)?\(/g;
  for (const file of files) {
    const text = readFileSync(`${root}/${file}`, "utf8");
    for (const match of text.matchAll(pattern)) {
      const comment = match[1] as string;
      const example = comment
        .slice(comment.indexOf("@example") + "@example".length)
        .split(/\n\s*\*\s*@\w+/)[0]
        ?.replace(/^\s*\* ?/gm, "") as string;
      const params = enclosed(text, (match.index ?? 0) + match[0].length - 1);
      if (params === undefined) continue;
      found.push({
        file,
        line: text.slice(0, match.index).split("\n").length,
        name: match[2] as string,
        example,
        params,
      });
    }
  }
  return found;
}

/** How many arguments the parameter list accepts: [required, most] (most is Infinity with a rest parameter). */
function arity(params: string): [number, number] {
  const parts = topLevelParts(params.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, ""));
  if (parts.some((part) => part.startsWith("...")))
    return [parts.filter((p) => !p.startsWith("...")).length, Infinity];
  const required = parts.filter(
    (part) => !/^[\w$]+\?\s*:/.test(part) && !/=/.test(part.replace(/=>/g, "")),
  ).length;
  return [required, parts.length];
}

describe("doc-comment examples", () => {
  const documented = documentedFunctions();

  it("are found (the scan itself works)", () => {
    expect(documented.length).toBeGreaterThan(100);
  });

  it("call the function they document with an argument count it accepts", () => {
    const drifted: string[] = [];
    for (const fn of documented) {
      const calls = [...fn.example.matchAll(new RegExp(`(?<![\\w.])${fn.name}(?:<[^(]*>)?\\(`, "g"))];
      const [required, most] = arity(fn.params);
      for (const call of calls) {
        const args = enclosed(fn.example, (call.index ?? 0) + call[0].length - 1);
        if (args === undefined) continue;
        const count = topLevelParts(args).length;
        if (count < required || count > most) {
          drifted.push(
            `${fn.file}:${fn.line} ${fn.name}: the example passes ${count}, the function takes ${required}–${most}`,
          );
        }
      }
    }
    expect(drifted).toEqual([]);
  });
});
