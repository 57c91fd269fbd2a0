# Runs inside the sandbox. Started ahead of time (warm pool), it blocks on stdin until the host
# sends {"code", "input"}, runs the user's main(inputs) once, writes one JSON result to fd 3 and exits.
# The result never travels on stdout, so nothing the user prints can forge or break it.
import os

# Readiness: the host sends the request only after this byte, which proves bwrap has armed
# --die-with-parent for the whole sandbox (see SandboxedProcess.run). zygote.py imports this file
# and forks a child per request instead; it sends its own.
if __name__ == "__main__":
    os.write(3, b"\n")

import json
import linecache
import sys
import traceback
import types

# Imported ahead of the request so a warm run does not pay for them.
import base64  # noqa: F401
import collections  # noqa: F401
import datetime  # noqa: F401
import decimal  # noqa: F401
import functools  # noqa: F401
import hashlib  # noqa: F401
import itertools  # noqa: F401
import math  # noqa: F401
import random  # noqa: F401
import re  # noqa: F401
import statistics  # noqa: F401
import string  # noqa: F401
import time  # noqa: F401

FILENAME = "main.py"
RESULT_FD = 3


def encode(result):
    return json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")


def send(data):
    view = memoryview(data)
    while view:
        written = os.write(RESULT_FD, view)
        view = view[written:]


def finish(result):
    finish_encoded(encode(result), 0 if result.get("ok") else 1)


def finish_encoded(data, status=0):
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    send(data)
    # os._exit: threads the user left running must not keep the run alive after its result.
    os._exit(status)


def user_line(tb):
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == FILENAME:
            line = frame.lineno
    return line


def failure(kind, error, line=None):
    detail = {"kind": kind, "type": type(error).__name__, "message": str(error) or type(error).__name__}
    if line is not None:
        detail["line"] = line
    return {"ok": False, "error": detail}


def print_user_traceback(error):
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(error), error)
    sys.stderr.write("".join(lines))


def main():
    raw = sys.stdin.buffer.read()
    try:
        request = json.loads(raw)
        code = request["code"]
        inputs = request["input"]
        if not isinstance(code, str) or not isinstance(inputs, dict):
            raise ValueError("expected {code: string, input: object}")
    except Exception as error:
        finish(failure("invalid_input", error))
        return

    try:
        compiled = compile(code, FILENAME, "exec", dont_inherit=True)
    except SyntaxError as error:
        finish({
            "ok": False,
            "error": {"kind": "compile", "type": type(error).__name__, "message": str(error.msg), "line": error.lineno},
        })
        return

    # Lets tracebacks show the user's source lines, as they would for a file.
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    namespace = {"__name__": "main", "__file__": FILENAME, "__builtins__": __builtins__}
    try:
        exec(compiled, namespace)
        entry = namespace.get("main")
        if not callable(entry):
            finish({
                "ok": False,
                "error": {"kind": "compile", "type": "MissingMain", "message": "The code must define main(inputs)."},
            })
            return
        output = entry(inputs)
        if isinstance(output, types.CoroutineType):
            # Imported only for async code: asyncio alone costs more than the rest of the start-up.
            import asyncio

            output = asyncio.run(output)
    except MemoryError as error:
        print_user_traceback(error)
        finish(failure("memory", error, user_line(error.__traceback__)))
        return
    except BaseException as error:  # SystemExit and KeyboardInterrupt are user errors here too
        print_user_traceback(error)
        finish(failure("runtime", error, user_line(error.__traceback__)))
        return

    if not isinstance(output, dict):
        finish({
            "ok": False,
            "error": {
                "kind": "invalid_output",
                "type": type(output).__name__,
                "message": "main must return a dict, got %s" % type(output).__name__,
            },
        })
        return
    try:
        data = encode({"ok": True, "output": output})
    except (TypeError, ValueError, RecursionError) as error:
        finish(failure("invalid_output", error))
        return
    finish_encoded(data)


if __name__ == "__main__":
    main()
