// Runs inside the sandbox, as the resident JavaScript runner of one workspace: it serves that
// workspace's Code nodes one after the other, each in a new V8 isolate (isolated-vm) that is disposed
// when the node ends. An isolate is a heap of its own with its own memory limit; the code in it gets
// the language (Object, JSON, Math, Promise, …) and a console, nothing of Node.js: no require, no
// process, no filesystem, no timers. So it cannot reach this process's memory, its descriptors or
// another node's data; only a V8 bug could. Code that needs Node.js APIs is routed by the host to the
// one-process-per-run runner (runner.cjs) instead.
// Protocol as runner.cjs: see protocol.cjs.
"use strict";
const { checkRequest, frame, frameOver, serveRequests, signalReady } = require("./protocol.cjs");

const FILENAME = "main.js";
const [bindingPath, memoryArgument] = process.argv.slice(2);
const MEMORY_MB = Math.max(8, Number(memoryArgument) || 192);

signalReady();

const binding = { exports: {} };
process.dlopen(binding, bindingPath);
const ivm = binding.exports.ivm;

// Evaluated in each node's isolate before the user's code: a console that hands text to the runner,
// and the driver that calls main and turns its outcome into the result (checked again outside).
const PRELUDE = `
"use strict";
const $print = globalThis.$print;
delete globalThis.$print;
// Taken before the user's code runs, so a node that replaces JSON's functions cannot garble its own result frame.
const $stringify = JSON.stringify;
const $parse = JSON.parse;
function $format(value) {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack || String(value);
  if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
  if (typeof value === "bigint") return value + "n";
  if (value !== null && typeof value === "object") {
    try { return $stringify(value); } catch { return String(value); }
  }
  return String(value);
}
const $write = (stream) => (...values) => { $print(stream, values.map($format).join(" ") + "\\n"); };
globalThis.console = {
  log: $write("o"), info: $write("o"), debug: $write("o"), trace: $write("e"),
  warn: $write("e"), error: $write("e"),
};
globalThis.require = (name) => {
  throw new Error("require('" + name + "') is not available here");
};
`;

const DRIVER = `
const [factory, inputJson] = [$0, $1];
const isErrorLike = (e) => e !== null && typeof e === "object" && typeof e.name === "string" && typeof e.message === "string";
const describe = (kind, e) => {
  const detail = { kind, type: isErrorLike(e) ? e.name : typeof e, message: isErrorLike(e) ? e.message : String(e) };
  const match = isErrorLike(e) && typeof e.stack === "string" ? /main\\.js:(\\d+)/.exec(e.stack) : null;
  if (match) detail.line = Number(match[1]);
  if (isErrorLike(e) && typeof e.stack === "string") {
    console.error(e.stack.split("\\n").filter((l) => !/^\\s+at /.test(l) || l.includes("main.js")).join("\\n"));
  } else console.error(String(e));
  const isMemory = detail.type === "RangeError" && /allocation failed|Invalid array length|out of memory/i.test(detail.message);
  return $stringify({ ok: false, error: isMemory ? { ...detail, kind: "memory" } : detail });
};
return (async () => {
  let entry;
  try {
    const module = { exports: {} };
    entry = factory(module, module.exports);
  } catch (e) {
    return describe("runtime", e);
  }
  if (typeof entry !== "function") {
    return $stringify({ ok: false, error: { kind: "compile", type: "MissingMain", message: "The code must define function main(inputs)." } });
  }
  let output;
  try {
    output = await entry($parse(inputJson));
  } catch (e) {
    return describe("runtime", e);
  }
  if (output === null || typeof output !== "object" || Array.isArray(output)) {
    const got = output === null ? "null" : Array.isArray(output) ? "array" : typeof output;
    return $stringify({ ok: false, error: { kind: "invalid_output", type: got, message: "main must return an object, got " + got } });
  }
  try {
    return '{"ok":true,"output":' + $stringify(output) + "}";
  } catch (e) {
    return describe("invalid_output", e);
  }
})();
`;

function failure(kind, type, message, line) {
  const error = { kind, type, message };
  if (line !== undefined) error.line = line;
  return JSON.stringify({ ok: false, error });
}

/**
 * A new isolate with its context and the prelude, no user code yet. Made while the runner waits for
 * the next request (see serveOne), so a node does not wait for it; it never serves more than one node.
 * Synchronous calls where nothing is awaited: each asynchronous one is a round trip between threads.
 */
function freshIsolate() {
  const isolate = new ivm.Isolate({ memoryLimit: MEMORY_MB });
  const context = isolate.createContextSync();
  const print = new ivm.Callback((stream, text) => {
    frame(stream === "e" ? "e" : "o", String(text));
  });
  context.global.setSync("$print", print);
  context.evalSync(PRELUDE);
  return { isolate, context };
}

let spare;

/** Runs one node in a new isolate; resolves with the result JSON (the host checks its shape again) and the isolate to dispose of. */
async function runNode(request) {
  const { isolate, context } = spare ?? freshIsolate();
  spare = undefined;
  return { result: await runIn(isolate, context, request), isolate };
}

async function runIn(isolate, context, request) {
  try {
    // No newline before the code, so the user's line numbers are the script's.
    const wrapped = `(function (module, exports) {${request.code}\n;return typeof main === "function" ? main : module.exports.main;})`;
    let script;
    try {
      script = isolate.compileScriptSync(wrapped, { filename: FILENAME });
    } catch (error) {
      const line = /main\.js:(\d+)/.exec(String(error?.stack));
      return failure(
        "compile",
        error?.name ?? "SyntaxError",
        String(error?.message ?? error),
        line ? Number(line[1]) : undefined,
      );
    }
    const factory = script.runSync(context, { reference: true });
    const result = await context.evalClosure(DRIVER, [factory.derefInto(), JSON.stringify(request.input)], {
      result: { promise: true },
    });
    return typeof result === "string" ? result : failure("runtime", "Error", "the node gave no result");
  } catch (error) {
    const message = String(error?.message ?? error);
    if (isolate.isDisposed || /memory limit|allocation failed/i.test(message)) {
      return failure("memory", "RangeError", `The code used more than its ${MEMORY_MB} MiB of memory.`);
    }
    return failure("runtime", error?.name ?? "Error", message);
  }
}

async function serveOne(body) {
  let request;
  let result;
  try {
    request = checkRequest(JSON.parse(body.toString("utf8")));
  } catch (error) {
    result = failure("invalid_input", "TypeError", String(error.message));
  }
  let used;
  if (!result) ({ result, isolate: used } = await runNode(request));
  let status = 1;
  try {
    status = JSON.parse(result).ok === true ? 0 : 1;
  } catch {
    status = 1;
  }
  frame("r", result);
  // Disposed before the node is reported over, so nothing of it is left when the next node starts.
  if (used && !used.isDisposed) used.dispose();
  frameOver(status);
  // The next node's isolate, made now rather than on its arrival (the runner is otherwise idle).
  setImmediate(() => {
    if (spare === undefined && queue.length === 0) spare = freshIsolate();
  });
}

const queue = serveRequests(serveOne);
