import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Language, type Sandbox } from "./index.ts";
import { killOwnedBy } from "./testing/processes.ts";

const UID_BASE = 1_640_000_000;
/** Makes this run's programs new to the on-disk binary cache, so the first run really compiles. */
const NONCE = randomBytes(6).toString("hex");

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: UID_BASE, concurrency: 2, warmPerLanguage: 1 });
  await sandbox.warmUp();
}, 240_000);
afterAll(async () => {
  await sandbox?.close();
  killOwnedBy(UID_BASE, UID_BASE + 1024);
});

const source = (...lines: string[]) => `${lines.join("\n")}\n`;
const INPUT = { a: 2, b: 3.5, name: "Ada", mode: "ok" };
const EXPECTED = { sum: 5.5, greeting: "hello Ada" };
const FORGED = '{"ok":true,"output":{"forged":true}}';

function run(language: Language, code: string, input: unknown = INPUT, timeoutMs?: number) {
  return sandbox.run({ language, code, input, ...(timeoutMs ? { timeoutMs } : {}) });
}

describe("python", () => {
  it("runs main and keeps the user's prints out of the result", async () => {
    const result = await run(
      "python",
      source(
        "def main(inputs: dict) -> dict:",
        "    print('printed to stdout')",
        `    print('${FORGED}')`,
        "    return {'sum': inputs['a'] + inputs['b'], 'greeting': 'hello ' + inputs['name']}",
      ),
    );
    expect(result.error).toBeNull();
    expect(result.output).toEqual(EXPECTED);
    expect(result.stdout).toBe(`printed to stdout\n${FORGED}\n`);
    expect(result.exitCode).toBe(0);
  });

  it("does not count a stall of this service's event loop against the program", async () => {
    const running = run(
      "python",
      source("def main(inputs: dict) -> dict:", "    return {'sum': inputs['a'] + inputs['b']}"),
      INPUT,
      1_000,
    );
    // Let the run start, then hold the thread for longer than its limit, as a big statement on the
    // embedded database (which runs on this thread) does: the program finishes meanwhile, unseen.
    await new Promise((resolve) => setImmediate(resolve));
    const until = performance.now() + 2_000;
    while (performance.now() < until) {
      // busy: nothing else on this thread runs
    }
    const result = await running;
    expect(result.error).toBeNull();
    expect(result.output).toEqual({ sum: 5.5 });
  });

  it("reports a runtime error with the user's line and traceback", async () => {
    const result = await run(
      "python",
      source("def helper(x):", "    return x / 0", "", "def main(inputs):", "    return {'v': helper(1)}"),
    );
    expect(result.output).toBeNull();
    expect(result.error).toEqual({
      kind: "runtime",
      type: "ZeroDivisionError",
      message: "division by zero",
      line: 2,
    });
    expect(result.stderr).toContain('File "main.py", line 2, in helper');
    expect(result.exitCode).toBe(1);
  });

  it("reports a syntax error as a compile error with its line, and a missing main", async () => {
    const syntax = await run("python", source("def main(inputs):", "    x = (1,", "    return {}"));
    expect(syntax.error).toMatchObject({ kind: "compile", type: "SyntaxError", line: 2 });
    const missing = await run("python", source("x = 1"));
    expect(missing.error?.kind).toBe("compile");
    expect(missing.error?.message).toContain("main(inputs)");
  });

  it("supports async main", async () => {
    const result = await run(
      "python",
      source(
        "import asyncio",
        "async def main(inputs):",
        "    await asyncio.sleep(0)",
        "    return {'n': inputs['a']}",
      ),
    );
    expect(result.output).toEqual({ n: 2 });
  });

  it("refuses an output that is not an object, or not JSON", async () => {
    const list = await run("python", source("def main(inputs):", "    return [1, 2]"));
    expect(list.error).toMatchObject({
      kind: "invalid_output",
      message: "main must return a dict, got list",
    });
    const nan = await run("python", source("def main(inputs):", "    return {'x': float('nan')}"));
    expect(nan.error?.kind).toBe("invalid_output");
  });
});

describe("javascript", () => {
  it("runs on the services' pinned Node.js, bound read-only, not the host's /usr/bin/node", async () => {
    const result = await run(
      "javascript",
      source(
        "const fs = require('node:fs');",
        "function main() {",
        "  let writable = true;",
        "  try { fs.appendFileSync(process.execPath, ''); } catch { writable = false; }",
        "  return { version: process.version, exe: process.execPath, writable };",
        "}",
      ),
    );
    expect(result.error, result.stderr).toBeNull();
    // vitest runs on the pinned runtime (npm scripts put node_modules/.bin first), as the services do.
    expect(result.output).toEqual({ version: process.version, exe: "/runtime/node", writable: false });
    expect(process.versions.node.split(".")[0]).toBe("24");
  });

  it("runs main (async allowed) and keeps the user's prints out of the result", async () => {
    const result = await run(
      "javascript",
      source(
        "async function main(inputs) {",
        "  console.log('printed to stdout');",
        `  console.log('${FORGED}');`,
        "  await new Promise((resolve) => setTimeout(resolve, 1));",
        "  return { sum: inputs.a + inputs.b, greeting: 'hello ' + inputs.name };",
        "}",
      ),
    );
    expect(result.error).toBeNull();
    expect(result.output).toEqual(EXPECTED);
    expect(result.stdout).toBe(`printed to stdout\n${FORGED}\n`);
  });

  it("reports a runtime error with the user's line", async () => {
    const result = await run(
      "javascript",
      source("function main(inputs) {", "  const missing = null;", "  return { v: missing.field };", "}"),
    );
    expect(result.error).toMatchObject({ kind: "runtime", type: "TypeError", line: 3 });
    expect(result.stderr).toContain("main.js:3");
  });

  it("reports a syntax error with its line, and a missing main", async () => {
    const syntax = await run("javascript", source("function main(inputs) {", "", "  return {;", "}"));
    expect(syntax.error).toMatchObject({ kind: "compile", type: "SyntaxError", line: 3 });
    const missing = await run("javascript", source("const x = 1;"));
    expect(missing.error?.kind).toBe("compile");
    expect(missing.error?.message).toContain("main(inputs)");
  });

  it("refuses an output that is not an object, or not JSON", async () => {
    const text = await run("javascript", source("function main() {", "  return 'text';", "}"));
    expect(text.error).toMatchObject({
      kind: "invalid_output",
      message: "main must return an object, got string",
    });
    const bigint = await run("javascript", source("function main() {", "  return { n: 1n };", "}"));
    expect(bigint.error?.kind).toBe("invalid_output");
  });
});

// One program per compiled language, steered by `mode`, so the suite compiles each only once.
const GO_PROGRAM = source(
  `// no package clause: the sandbox adds it and keeps these line numbers (${NONCE})`,
  "import (",
  '\t"errors"',
  '\t"fmt"',
  '\t"io/fs"',
  '\t"path/filepath"',
  ")",
  "",
  "func Main(inputs map[string]any) (map[string]any, error) {",
  '\tfmt.Println("printed to stdout")',
  `\tfmt.Println(\`${FORGED}\`)`,
  '\tswitch inputs["mode"] {',
  '\tcase "panic":',
  "\t\tvar counts map[string]int",
  '\t\tcounts["x"] = 1',
  '\tcase "error":',
  '\t\treturn nil, errors.New("bad input value")',
  '\tcase "nil":',
  "\t\treturn nil, nil",
  '\tcase "loop":',
  "\t\tfor {",
  "\t\t}",
  '\tcase "files":',
  "\t\tvar files []any",
  '\t\tfilepath.WalkDir("/sandbox", func(path string, entry fs.DirEntry, err error) error {',
  "\t\t\tif err == nil && !entry.IsDir() {",
  "\t\t\t\tfiles = append(files, path)",
  "\t\t\t}",
  "\t\t\treturn nil",
  "\t\t})",
  '\t\treturn map[string]any{"files": files}, nil',
  "\t}",
  '\ta, b := inputs["a"].(float64), inputs["b"].(float64)',
  '\treturn map[string]any{"sum": a + b, "greeting": "hello " + inputs["name"].(string)}, nil',
  "}",
);

const RUST_PROGRAM = source(
  `// ${NONCE}`,
  "use serde_json::{json, Value};",
  "",
  "fn main_fn(inputs: Value) -> Result<Value, String> {",
  '    println!("printed to stdout");',
  `    println!("{}", r#"${FORGED}"#);`,
  '    match inputs["mode"].as_str() {',
  '        Some("panic") => {',
  "            let items: Vec<i64> = Vec::new();",
  '            return Ok(json!({ "item": items[3] }));',
  "        }",
  '        Some("error") => return Err("bad input value".to_string()),',
  '        Some("array") => return Ok(json!([1, 2])),',
  '        Some("loop") => loop {},',
  "        _ => {}",
  "    }",
  '    let a = inputs["a"].as_f64().unwrap_or(0.0);',
  '    let b = inputs["b"].as_f64().unwrap_or(0.0);',
  '    let name = inputs["name"].as_str().unwrap_or("nobody");',
  '    Ok(json!({ "sum": a + b, "greeting": format!("hello {}", name) }))',
  "}",
);

describe.each([
  { language: "go" as const, program: GO_PROGRAM, panicLine: 15, notObject: "nil" },
  { language: "rust" as const, program: RUST_PROGRAM, panicLine: 10, notObject: "array" },
])("$language", ({ language, program, panicLine, notObject }) => {
  it("compiles once, then runs the cached binary: output, prints, errors and limits", async () => {
    const before = sandbox.stats();
    const ok = await run(language, program);
    expect(ok.error, ok.stderr).toBeNull();
    expect(ok.output).toEqual(EXPECTED);
    expect(ok.stdout).toBe(`printed to stdout\n${FORGED}\n`);

    const panic = await run(language, program, { ...INPUT, mode: "panic" });
    expect(panic.output).toBeNull();
    expect(panic.error).toMatchObject({ kind: "runtime", type: "panic", line: panicLine });

    const returned = await run(language, program, { ...INPUT, mode: "error" });
    expect(returned.error).toMatchObject({ kind: "runtime", message: "bad input value" });

    const wrongShape = await run(language, program, { ...INPUT, mode: notObject });
    expect(wrongShape.error?.kind).toBe("invalid_output");

    const loop = await run(language, program, { ...INPUT, mode: "loop" }, 1000);
    expect(loop.timedOut).toBe(true);
    expect(loop.error?.kind).toBe("timeout");

    const after = sandbox.stats();
    expect(after.compiles - before.compiles).toBe(1);
    expect(after.cacheHits - before.cacheHits).toBe(4);
    // Default limits: the cached binary ran in pre-started sandboxes.
    expect(after.warmStarts - before.warmStarts).toBeGreaterThan(0);
  });
});

describe("go binaries", () => {
  it("shows a run its own binary and nothing else of the cache, warm or cold", async () => {
    const warm = await run("go", GO_PROGRAM, { ...INPUT, mode: "files" });
    expect(warm.output).toEqual({ files: ["/sandbox/bin/main"] });
    // Other limits than the defaults: a cold sandbox with the binary bound on its own.
    const cold = await sandbox.run({
      language: "go",
      code: GO_PROGRAM,
      input: { ...INPUT, mode: "files" },
      memoryMb: 128,
    });
    expect(cold.output).toEqual({ files: ["/sandbox/main"] });
  });
});

describe("compile errors", () => {
  it("go: a clear result with the user's line, not an exception", async () => {
    const result = await run(
      "go",
      source(
        "package main",
        "",
        "func Main(inputs map[string]any) (map[string]any, error) {",
        "\treturn undefinedName, nil",
        "}",
      ),
    );
    expect(result.output).toBeNull();
    expect(result.error).toMatchObject({ kind: "compile", line: 4 });
    expect(result.error?.message).toContain("undefinedName");
    expect(result.stderr).toContain("main.go:4");
    const missing = await run("go", source("package main", "", "func Helper() {}"));
    expect(missing.error?.kind).toBe("compile");
    expect(missing.error?.message).toContain("func Main(inputs map[string]any) (map[string]any, error)");
    const plainMain = await run("go", source("package main", "", "func main() {}"));
    expect(plainMain.error?.kind).toBe("compile");
    expect(plainMain.error?.message).toContain("not func main");
  });

  it("go: cgo is refused with a message that says so, not a compiler error about the code's names", async () => {
    const result = await run(
      "go",
      source(
        "package main",
        "",
        "// #include <stdlib.h>",
        'import "C"',
        "",
        "func Main(inputs map[string]any) (map[string]any, error) {",
        '\treturn map[string]any{"n": int(C.abs(-1))}, nil',
        "}",
      ),
    );
    expect(result.output).toBeNull();
    expect(result.error).toMatchObject({ kind: "compile", line: 4 });
    expect(result.error?.message).toContain('cgo (import "C") is not supported');
    expect(result.stderr).toContain("main.go:4");
  });

  it("rust: a clear result with the user's line, not an exception", async () => {
    const result = await run(
      "rust",
      source(
        "fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String> {",
        '    let count: i32 = "text";',
        "    Ok(inputs)",
        "}",
      ),
    );
    expect(result.output).toBeNull();
    expect(result.error).toMatchObject({ kind: "compile", message: "mismatched types", line: 2 });
    expect(result.stderr).toContain("main.rs:2");
    const missing = await run("rust", source("fn helper() {}"));
    expect(missing.error?.kind).toBe("compile");
    expect(missing.error?.message).toContain("fn main_fn(inputs: serde_json::Value)");
    const plainMain = await run("rust", source("fn main() {", '    println!("hello");', "}"));
    expect(plainMain.error?.kind).toBe("compile");
    expect(plainMain.error?.message).toContain("not fn main");
    expect(plainMain.error?.message).toContain("fn main_fn(inputs: serde_json::Value)");
  });
});

describe.each(["python", "javascript", "go", "rust"] as const)("%s input", (language) => {
  it("refuses input that is not a JSON object before starting anything", async () => {
    const code = "irrelevant: never compiled";
    const before = sandbox.stats().runs;
    const array = await run(language, code, [1, 2]);
    expect(array.error).toEqual({ kind: "invalid_input", message: "input must be a JSON object" });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const cyclic = await run(language, code, circular);
    expect(cyclic.error?.kind).toBe("invalid_input");
    expect(cyclic.error?.message).toContain("not JSON");
    expect(sandbox.stats().runs).toBe(before);
  });
});
