// Runs inside the sandbox. Started ahead of time (warm pool), it blocks on stdin until the host
// sends {"code", "input"}, runs the user's main(inputs) once, writes one JSON result to fd 3 and exits.
// The result never travels on stdout, so nothing the user prints can forge or break it.
"use strict";
const fs = require("node:fs");
const vm = require("node:vm");

const FILENAME = "main.js";
const RESULT_FD = 3;

// Readiness: the host sends the request only after this byte, which proves bwrap has armed
// --die-with-parent for the whole sandbox (see SandboxedProcess.run).
fs.writeSync(RESULT_FD, "\n");

function send(text) {
  const data = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += fs.writeSync(RESULT_FD, data, offset);
    } catch (error) {
      // A large result can fill the pipe before the host drains it.
      if (error && error.code === "EAGAIN") continue;
      throw error;
    }
  }
}

function finish(result) {
  const isString = typeof result === "string";
  send(isString ? result : JSON.stringify(result));
  // exit at once: timers or sockets the user left open must not keep the run alive.
  process.exit(isString || result.ok ? 0 : 1);
}

function userLine(error) {
  const stack = error && typeof error.stack === "string" ? error.stack : "";
  const match = new RegExp(`${FILENAME.replace(".", "\\.")}:(\\d+)`).exec(stack);
  return match ? Number(match[1]) : undefined;
}

function describe(kind, error) {
  const isError = error instanceof Error;
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
    error instanceof RangeError &&
    /allocation failed|Failed to allocate memory|Invalid array length|out of memory/i.test(error.message)
  );
}

function printUserStack(error) {
  const stack = error instanceof Error && typeof error.stack === "string" ? error.stack : String(error);
  const lines = stack.split("\n").filter((line) => !/^\s+at /.test(line) || line.includes(FILENAME));
  process.stderr.write(`${lines.join("\n")}\n`);
}

async function run(request) {
  let entry;
  try {
    const module = { exports: {} };
    const body = `${request.code}\n;return typeof main === "function" ? main : module.exports.main;`;
    let factory;
    try {
      factory = vm.compileFunction(body, ["require", "module", "exports"], { filename: FILENAME });
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

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  let request;
  try {
    request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof request.code !== "string" || request.input === null || typeof request.input !== "object") {
      throw new TypeError("expected {code: string, input: object}");
    }
  } catch (error) {
    finish(describe("invalid_input", error));
    return;
  }
  run(request).then(finish, (error) => finish(describe("runtime", error)));
});
