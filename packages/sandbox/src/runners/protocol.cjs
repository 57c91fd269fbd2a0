// The wire protocol between the host (SandboxedProcess, resident.ts) and a resident JavaScript runner
// (runner.cjs, isolate-runner.cjs), in one place so the two cannot drift apart. It runs inside the
// sandbox: the runners' folder is bound read-only at /sandbox, so `require("./protocol.cjs")` finds it.
//
// Requests arrive on stdin as a decimal length, a newline, then that many bytes of JSON
// {"code", "input"}. Answers leave on fd 3 as frames: one kind byte ("o"/"e" output, "r" result,
// "x" {"status", "cpu"} once the node is over), a 4-byte big-endian length, the payload. Prints never
// travel on fd 3 unframed, so they cannot forge a result.
"use strict";
const fs = require("node:fs");

const RESULT_FD = 3;

/**
 * Readiness: the host sends the first request only after this byte, which proves bwrap has armed
 * --die-with-parent for the whole sandbox (see SandboxedProcess.run).
 */
function signalReady() {
  fs.writeSync(RESULT_FD, "\n");
}

function send(data) {
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

/** Writes one frame; `data` is text (UTF-8) or bytes. */
function frame(kind, data) {
  const payload = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
  const header = Buffer.alloc(5);
  header.write(kind, 0, "latin1");
  header.writeUInt32BE(payload.length, 1);
  send(Buffer.concat([header, payload]));
}

/**
 * Reports the node over. `cpu` is the process's CPU time so far (every thread): the host replaces its
 * RLIMIT_CPU with it before the limit could cut a later node short.
 */
function frameOver(status) {
  const used = process.cpuUsage();
  frame("x", JSON.stringify({ status, cpu: (used.user + used.system) / 1e6 }));
}

/** Checks a parsed request's shape; throws a TypeError the runner reports as invalid_input. */
function checkRequest(request) {
  if (
    request === null ||
    typeof request !== "object" ||
    typeof request.code !== "string" ||
    request.input === null ||
    typeof request.input !== "object"
  ) {
    throw new TypeError("expected {code: string, input: object}");
  }
  return request;
}

/**
 * Reads length-prefixed requests from stdin and hands each body (bytes) to `serveOne`, one at a time
 * in arrival order. A malformed length ends the process (status 2): the host is the only writer, so
 * it means a bug, not user input. When the host closes stdin the process leaves once the requests it
 * sent before are answered. Returns the queue, so a runner can tell whether a request is waiting.
 */
function serveRequests(serveOne) {
  let pending = Buffer.alloc(0);
  let isBusy = false;
  let isEnded = false;
  const queue = [];
  const pump = async () => {
    if (isBusy) return;
    isBusy = true;
    while (queue.length > 0) await serveOne(queue.shift());
    isBusy = false;
    if (isEnded) process.exit(0);
  };
  process.stdin.on("data", (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const newline = pending.indexOf(10);
      if (newline < 0) break;
      const length = Number(pending.subarray(0, newline).toString("latin1"));
      if (!Number.isSafeInteger(length) || length < 0) process.exit(2);
      if (pending.length < newline + 1 + length) break;
      queue.push(pending.subarray(newline + 1, newline + 1 + length));
      pending = pending.subarray(newline + 1 + length);
    }
    void pump();
  });
  process.stdin.on("end", () => {
    isEnded = true;
    void pump();
  });
  return queue;
}

module.exports = { signalReady, frame, frameOver, checkRequest, serveRequests };
