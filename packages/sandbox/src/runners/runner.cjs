// Runs inside the sandbox. Started ahead of time (warm pool), it blocks on stdin until the host
// sends a request {"code", "input"}, runs the user's main(inputs) in a fresh V8 context and writes
// the output and one JSON result as frames on fd 3, then waits for the next request of the same
// workflow run (see serveSession). Prints never travel with the result, so they cannot forge it.
"use strict";
const vm = require("node:vm");
const { checkRequest, frame, frameOver, serveRequests, signalReady } = require("./protocol.cjs");

const FILENAME = "main.js";

signalReady();

function userLine(error) {
  const stack = error && typeof error.stack === "string" ? error.stack : "";
  const match = new RegExp(`${FILENAME.replace(".", "\\.")}:(\\d+)`).exec(stack);
  return match ? Number(match[1]) : undefined;
}

/** An Error of this realm or of a node's own context (where `instanceof Error` is false). */
function isErrorLike(error) {
  return (
    error instanceof Error ||
    (error !== null &&
      typeof error === "object" &&
      typeof error.name === "string" &&
      typeof error.message === "string")
  );
}

function describe(kind, error) {
  const isError = isErrorLike(error);
  const detail = {
    kind,
    type: isError ? error.name : typeof error,
    message: isError ? error.message : String(error),
  };
  const line = userLine(error);
  if (line !== undefined) detail.line = line;
  return { ok: false, error: detail };
}

function isMemoryError(error) {
  return (
    isErrorLike(error) &&
    error.name === "RangeError" &&
    /allocation failed|Failed to allocate memory|Invalid array length|out of memory/i.test(error.message)
  );
}

function printUserStack(error) {
  const stack = isErrorLike(error) && typeof error.stack === "string" ? error.stack : String(error);
  const lines = stack.split("\n").filter((line) => !/^\s+at /.test(line) || line.includes(FILENAME));
  process.stderr.write(`${lines.join("\n")}\n`);
}

/** Runs main once; `context`, in a session, is the node's own V8 context (fresh globals). */
async function run(request, context) {
  let entry;
  try {
    const module = { exports: {} };
    const body = `${request.code}\n;return typeof main === "function" ? main : module.exports.main;`;
    let factory;
    try {
      factory = vm.compileFunction(body, ["require", "module", "exports"], {
        filename: FILENAME,
        ...(context ? { parsingContext: context } : {}),
      });
    } catch (error) {
      return describe("compile", error);
    }
    entry = factory(require, module, module.exports);
  } catch (error) {
    printUserStack(error);
    return describe(isMemoryError(error) ? "memory" : "runtime", error);
  }
  if (typeof entry !== "function") {
    return {
      ok: false,
      error: { kind: "compile", type: "MissingMain", message: "The code must define function main(inputs)." },
    };
  }
  let output;
  try {
    output = await entry(request.input);
  } catch (error) {
    printUserStack(error);
    return describe(isMemoryError(error) ? "memory" : "runtime", error);
  }
  if (output === null || typeof output !== "object" || Array.isArray(output)) {
    const got = output === null ? "null" : Array.isArray(output) ? "array" : typeof output;
    return {
      ok: false,
      error: { kind: "invalid_output", type: got, message: `main must return an object, got ${got}` },
    };
  }
  try {
    // Serialised here, inside the try, so a BigInt or a cycle is the user's invalid_output, not a crash.
    return `{"ok":true,"output":${JSON.stringify(output)}}`;
  } catch (error) {
    return describe("invalid_output", error);
  }
}

/** The Node.js globals a node's fresh context gets besides the language's own (Object, JSON, Promise, …). */
const SHARED_GLOBALS = [
  "Buffer",
  "process",
  "URL",
  "URLSearchParams",
  "TextEncoder",
  "TextDecoder",
  "AbortController",
  "AbortSignal",
  "Event",
  "EventTarget",
  "atob",
  "btoa",
  "structuredClone",
  "queueMicrotask",
  "performance",
  "crypto",
  "Blob",
];

/**
 * Session mode (a run's Code nodes in turn, in one process): each request gets a new V8 context with
 * its own globals, console and timers; timers a node leaves are cleared when it ends. The host kills
 * the process on a node's timeout, output overflow or crash, and the next node starts a new one.
 * Frames on fd 3 as in zygote.py (see protocol.cjs).
 */
function serveSession() {
  const framedWrite = (kind) => (chunk, encoding, callback) => {
    frame(
      kind,
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8")
        : chunk,
    );
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") done();
    return true;
  };
  process.stdout.write = framedWrite("o");
  process.stderr.write = framedWrite("e");

  let current;
  const failCurrent = (error) => {
    printUserStack(error);
    current?.(describe(isMemoryError(error) ? "memory" : "runtime", error));
  };
  // A promise a node forgot must not take the process (and the run's later nodes) down.
  process.on("unhandledRejection", failCurrent);
  process.on("uncaughtException", failCurrent);

  const serveOne = async (body) => {
    const timers = new Set();
    const track =
      (start, clear) =>
      (...args) => {
        const handle = start(...args);
        timers.add(() => clear(handle));
        return handle;
      };
    const globals = {
      console: new console.Console(process.stdout, process.stderr),
      setTimeout: track(setTimeout, clearTimeout),
      setInterval: track(setInterval, clearInterval),
      setImmediate: track(setImmediate, clearImmediate),
      clearTimeout,
      clearInterval,
      clearImmediate,
    };
    for (const name of SHARED_GLOBALS) if (name in globalThis) globals[name] = globalThis[name];
    const context = vm.createContext(globals);
    let request;
    let result;
    try {
      // Parsed in the node's context, so its arrays and objects have that context's prototypes.
      request = checkRequest(vm.runInContext("JSON.parse", context)(body.toString("utf8")));
    } catch (error) {
      result = describe("invalid_input", error);
    }
    if (!result) {
      result = await new Promise((resolve) => {
        current = resolve;
        run(request, context).then(resolve, (error) => resolve(describe("runtime", error)));
      });
      current = undefined;
    }
    for (const clear of timers) clear();
    const isString = typeof result === "string";
    frame("r", isString ? result : JSON.stringify(result));
    frameOver(isString || result.ok ? 0 : 1);
  };

  serveRequests(serveOne);
}

serveSession();
