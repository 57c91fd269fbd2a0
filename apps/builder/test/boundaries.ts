// The builder's feature boundaries as a check (docs/architecture.md, "What each feature may import").
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

/** One import that breaks a rule, named so a reader can find and judge it. */
export interface Violation {
  file: string;
  imports: string;
  rule: "undeclared-dependency" | "schema-reach-in" | "schema-hub";
  message: string;
}

export interface BoundaryRules {
  /** feature → the features it may import; a feature absent here may import none. */
  mayImport: ReadonlyMap<string, ReadonlySet<string>>;
  /** `file → imported file` (both relative to src, `/`-separated) kept on purpose, each with its reason. */
  allowedReachIns: Readonly<Record<string, string>>;
}

/** A top-level file of src/ (app.ts, deps.ts, config.ts, …): the composition root, not a feature. */
const featureOf = (path: string): string | undefined => (path.includes("/") ? path.split("/")[0] : undefined);

const IMPORT = /(^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+"(\.{1,2}\/[^"]+)"/g;

function sourceFiles(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path, base);
      const isSource = name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts");
      return isSource ? [relative(base, path).split(sep).join("/")] : [];
    });
}

/**
 * Every import in `srcDir` (tests aside: they may reach anywhere to set a scene) that breaks a rule:
 * - a feature imports a feature its row of the table does not name (`undeclared-dependency`);
 * - a file other than a `schema.ts` takes a value (a table) from another feature's `schema.ts`: a
 *   reach into its storage past its functions (`schema-reach-in`). Schema files may import each
 *   other's tables for foreign keys, and `import type` of a row type gives no access, so both pass;
 * - anything outside `db/` imports the drizzle schema hub (`schema` of db/index.ts or db/schema.ts),
 *   which would reach every feature's tables (and `db.query.*`) without an import this check sees
 *   (`schema-hub`).
 *
 * @example expect(findViolations("apps/builder/src", rules)).toEqual([]);
 */
export function findViolations(srcDir: string, rules: BoundaryRules): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(srcDir)) {
    const from = featureOf(file);
    const text = readFileSync(join(srcDir, file), "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const names = match[4] ?? "";
      const isTypeOnly = takesOnlyTypes(Boolean(match[3]), names);
      const target = normalize(join(dirname(file), match[5] ?? ""))
        .split(sep)
        .join("/");
      const to = featureOf(target);
      if (!from || !to || from === to) continue;
      const allowedReason = rules.allowedReachIns[`${file} → ${target}`];
      if (to === "db" && from !== "db" && (target === "db/schema.ts" || /\bschema\b/.test(names))) {
        violations.push({
          file,
          imports: target,
          rule: "schema-hub",
          message: "the schema hub is drizzle's: use the owning feature's functions",
        });
      }
      if (!rules.mayImport.get(from)?.has(to)) {
        violations.push({
          file,
          imports: target,
          rule: "undeclared-dependency",
          message: `${from} may not import ${to} (add it to the table in docs/architecture.md if it should)`,
        });
        continue;
      }
      const isSchemaReach = target.endsWith("/schema.ts") && !file.endsWith("/schema.ts") && from !== "db";
      if (isSchemaReach && !isTypeOnly && allowedReason === undefined) {
        violations.push({
          file,
          imports: target,
          rule: "schema-reach-in",
          message: `${to}'s tables belong to ${to}: call one of its functions instead`,
        });
      }
    }
  }
  return violations;
}

/** `import type { A }` or `import { type A, type B }`: nothing that runs, so no table. */
function takesOnlyTypes(hasTypeKeyword: boolean, names: string): boolean {
  if (hasTypeKeyword) return true;
  const braces = /^\{([\s\S]*)\}$/.exec(names.trim());
  if (!braces) return false;
  const specifiers = (braces[1] ?? "")
    .split(",")
    .map((specifier) => specifier.trim())
    .filter(Boolean);
  return specifiers.length > 0 && specifiers.every((specifier) => specifier.startsWith("type "));
}

/** Every feature → the features it imports, as the code stands (for the table's check and its text). */
export function featureGraph(srcDir: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(srcDir)) {
    const from = featureOf(file);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    const text = readFileSync(join(srcDir, file), "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const to = featureOf(
        normalize(join(dirname(file), match[5] ?? ""))
          .split(sep)
          .join("/"),
      );
      if (to && to !== from) graph.get(from)?.add(to);
    }
  }
  return graph;
}

const TABLE_START = "<!-- feature-imports:start -->";
const TABLE_END = "<!-- feature-imports:end -->";

/** The table between the markers of docs/architecture.md: feature → may import. */
export function readDeclaredImports(markdown: string): Map<string, Set<string>> {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${TABLE_START} table`);
  const declared = new Map<string, Set<string>>();
  for (const line of markdown.slice(start, end).split("\n")) {
    const cells = /^\|\s*`([\w-]+)`\s*\|([^|]*)\|/.exec(line);
    if (!cells) continue;
    const targets = [...(cells[2] ?? "").matchAll(/`([\w-]+)`/g)].map((target) => target[1] ?? "");
    declared.set(cells[1] ?? "", new Set(targets));
  }
  return declared;
}

/** The table's text for a graph, as the docs hold it. */
export function renderDeclaredImports(graph: Map<string, Set<string>>): string {
  const rows = [...graph.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([feature, targets]) => {
      const list = [...targets].sort().map((target) => `\`${target}\``);
      return `| \`${feature}\` | ${list.length > 0 ? list.join(", ") : "—"} |`;
    });
  return [TABLE_START, "| Feature | May import |", "|---|---|", ...rows, TABLE_END].join("\n");
}
