import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BoundaryRules,
  featureGraph,
  findViolations,
  readDeclaredImports,
  renderDeclaredImports,
} from "../test/boundaries.ts";

const srcDir = fileURLToPath(new URL(".", import.meta.url));
const architectureDoc = fileURLToPath(new URL("../../../docs/architecture.md", import.meta.url));

/**
 * Reaches into another feature's tables that stay, each with why. Short on purpose: a new one is a
 * decision to write down here, not a way around the check.
 */
const ALLOWED_REACH_INS: Record<string, string> = {
  "agents/find-turn-context.ts → credentials/schema.ts":
    "a chat turn reads its agent, conversation, history and the provider credential in one statement " +
    "(five statements a turn in all, see bench apps); through credentials' functions it would be a " +
    "second round trip on every turn",
  "portability/references.ts → agents/schema.ts":
    "export and import name what a definition references (agents, credentials, knowledge bases, MCP " +
    "servers, workflows) through one generic id/name lookup; debt: each feature should offer a " +
    "find-by-name function instead (noted in issue 38's closing note)",
  "portability/references.ts → credentials/schema.ts":
    "export and import name what a definition references (agents, credentials, knowledge bases, MCP " +
    "servers, workflows) through one generic id/name lookup; debt: each feature should offer a " +
    "find-by-name function instead (noted in issue 38's closing note)",
  "portability/references.ts → knowledge/schema.ts":
    "export and import name what a definition references (agents, credentials, knowledge bases, MCP " +
    "servers, workflows) through one generic id/name lookup; debt: each feature should offer a " +
    "find-by-name function instead (noted in issue 38's closing note)",
  "portability/references.ts → mcp/schema.ts":
    "export and import name what a definition references (agents, credentials, knowledge bases, MCP " +
    "servers, workflows) through one generic id/name lookup; debt: each feature should offer a " +
    "find-by-name function instead (noted in issue 38's closing note)",
  "portability/references.ts → workflows/schema.ts":
    "export and import name what a definition references (agents, credentials, knowledge bases, MCP " +
    "servers, workflows) through one generic id/name lookup; debt: each feature should offer a " +
    "find-by-name function instead (noted in issue 38's closing note)",
};

const rules = (): BoundaryRules => ({
  mayImport: readDeclaredImports(readFileSync(architectureDoc, "utf8")),
  allowedReachIns: ALLOWED_REACH_INS,
});

describe("feature boundaries", () => {
  it("holds in the builder: no undeclared feature import, no reach into another feature's tables", () => {
    expect(findViolations(srcDir, rules())).toEqual([]);
  });

  it("declares in docs/architecture.md exactly the imports the features make (no stale row)", () => {
    const declared = readDeclaredImports(readFileSync(architectureDoc, "utf8"));
    const actual = featureGraph(srcDir);
    // On failure, the expected text is the table to paste between the markers.
    expect(renderDeclaredImports(declared)).toBe(renderDeclaredImports(actual));
  });

  it("keeps each allowed reach-in in use (a fixed one leaves the list)", () => {
    for (const entry of Object.keys(ALLOWED_REACH_INS)) {
      const [file, target] = entry.split(" → ");
      const text = readFileSync(join(srcDir, file ?? ""), "utf8");
      expect(text, entry).toContain(`/${target?.split("/").at(-2)}/schema.ts"`);
    }
  });
});

describe("the boundary check itself", () => {
  const root = mkdtempSync(join(tmpdir(), "boundaries-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("db/index.ts", 'export * as schema from "./schema.ts";\n');
  write("db/schema.ts", 'export * from "../files/schema.ts";\n');
  write("files/schema.ts", "export const storedFiles = {};\nexport type StoredFileRow = {};\n");
  write(
    "files/record-files.ts",
    'import { storedFiles } from "./schema.ts";\nexport const record = storedFiles;\n',
  );
  write(
    "generation/schema.ts",
    'import { storedFiles } from "../files/schema.ts";\nexport const g = storedFiles;\n',
  );
  write(
    "generation/ok.ts",
    'import { record } from "../files/record-files.ts";\nexport const ok = record;\n',
  );
  write(
    "generation/typed.ts",
    'import type { StoredFileRow } from "../files/schema.ts";\nexport type T = StoredFileRow;\n',
  );
  const declared: BoundaryRules = {
    mayImport: new Map([
      ["generation", new Set(["files", "db"])],
      ["db", new Set(["files"])],
    ]),
    allowedReachIns: {},
  };

  it("passes functions, foreign keys between schema files and row types", () => {
    expect(findViolations(root, declared)).toEqual([]);
  });

  it("fails a deliberate reach into another feature's table", () => {
    write(
      "generation/reach-in.ts",
      'import { and } from "drizzle-orm";\nimport {\n  storedFiles,\n} from "../files/schema.ts";\nexport const x = [and, storedFiles];\n',
    );
    try {
      expect(findViolations(root, declared)).toEqual([
        expect.objectContaining({
          file: "generation/reach-in.ts",
          imports: "files/schema.ts",
          rule: "schema-reach-in",
        }),
      ]);
      expect(
        findViolations(root, {
          ...declared,
          allowedReachIns: { "generation/reach-in.ts → files/schema.ts": "kept on purpose" },
        }),
      ).toEqual([]);
    } finally {
      rmSync(join(root, "generation/reach-in.ts"));
    }
  });

  it("fails an import of a feature the table does not name, and any use of the schema hub", () => {
    write("files/upward.ts", 'import { ok } from "../generation/ok.ts";\nexport const u = ok;\n');
    write("generation/hub.ts", 'import { schema } from "../db/index.ts";\nexport const h = schema;\n');
    try {
      expect(findViolations(root, declared)).toEqual([
        expect.objectContaining({ file: "files/upward.ts", rule: "undeclared-dependency" }),
        expect.objectContaining({ file: "generation/hub.ts", rule: "schema-hub" }),
      ]);
    } finally {
      rmSync(join(root, "files/upward.ts"));
      rmSync(join(root, "generation/hub.ts"));
    }
  });
});
