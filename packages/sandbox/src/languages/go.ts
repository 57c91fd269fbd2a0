import { chmodSync, chownSync, lstatSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { binaryKey } from "../binary-cache.ts";
import type { ProcessLimits } from "../limits.ts";
import { probeVersion } from "./probe.ts";
import type { CompiledLanguage, CompileFailure, LanguageContext } from "./types.ts";

const GO = "/usr/bin/go";

/**
 * Fixed flags: the build cache is only warm for exactly these (a single changed flag such as
 * -trimpath rebuilt the whole standard library: 24 s on 2 cores).
 */
export const GO_BUILD_FLAGS = ["-ldflags=-s -w"] as const;

const GO_ENV = {
  GOCACHE: "/gocache",
  GOPATH: "/tmp/go",
  // Static binaries with no C toolchain involved, and no module downloads (there is no network anyway).
  CGO_ENABLED: "0",
  GOPROXY: "off",
  GOSUMDB: "off",
  GOFLAGS: "",
  GOTOOLCHAIN: "local",
  GOTELEMETRY: "off",
  GOMAXPROCS: "2",
} as const;

/** The packages the warm-up build compiles into the cache, so user builds only compile their own code. */
const WARM_UP_PROGRAM = `package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"math/rand"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

var _ = []any{bufio.NewReader, bytes.NewBuffer, sha256.New, base64.StdEncoding, hex.EncodeToString,
	errors.New, math.Sqrt, rand.Intn, sort.Ints, strings.ToUpper, time.Now, utf8.RuneLen}

func Main(inputs map[string]any) (map[string]any, error) { return inputs, nil }
`;

const PACKAGE_CLAUSE = /^\s*(?:\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*package\s+\w+/;

/**
 * The source as compiled: the user may leave out `package main`; then it is added with a //line
 * directive, so compile errors and panics still point at the user's own line numbers.
 *
 * @example goSource("func Main(...) ...") // "package main\n//line /tmp/src/main.go:1\nfunc Main(...) ..."
 */
export function goSource(code: string): string {
  return PACKAGE_CLAUSE.test(code) ? code : `package main\n//line /tmp/src/main.go:1\n${code}`;
}

const SIGNATURE = "func Main(inputs map[string]any) (map[string]any, error)";

/** `import "C"`, alone or in an import block, with an optional name (`_`, `.`, an alias). */
const CGO_IMPORT = /\bimport\s*(?:\(\s*(?:[^)]*?[\s;])?)?(?:[\w.]+\s+)?"C"/;

/**
 * Comments and string literals blanked out (newlines kept, so offsets still give line numbers), so
 * that an `import "C"` inside a comment or a string is not taken for one.
 */
function withoutCommentsAndStrings(code: string): string {
  return code.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|`[^`]*`|"(?:[^"\\\n]|\\.)*"/g, (match) =>
    match === '"C"' ? match : match.replace(/[^\n]/g, " "),
  );
}

/**
 * cgo cannot work here (CGO_ENABLED=0, no C toolchain inside the sandbox), and `go build` would
 * answer `import "C"` with an error about the code's own names; this says what is wrong instead.
 *
 * @example refuseCgo('package main\nimport "C"\n...') // { message: "cgo (import \"C\") is not supported …", line: 2, … }
 */
export function refuseCgo(code: string): CompileFailure | undefined {
  const source = withoutCommentsAndStrings(code);
  const match = CGO_IMPORT.exec(source);
  if (!match) return undefined;
  const at = match.index + match[0].lastIndexOf('"C"');
  const line = source.slice(0, at).split("\n").length;
  const message =
    'cgo (import "C") is not supported: Go code runs without a C toolchain (CGO_ENABLED=0). Use pure Go packages instead.';
  return { message, line, stderr: `main.go:${line}: ${message}\n` };
}

/**
 * Go: the user's `func Main(inputs map[string]any) (map[string]any, error)` compiled with
 * runners/wrapper.go, which owns `func main`.
 */
export const go: CompiledLanguage = {
  kind: "compiled",
  language: "go",
  probe: () =>
    probeVersion(GO, ["version"], /go version go(\S+)/, "install it with `apt-get install golang-go`"),
  async prepare(context) {
    const dir = goCacheDir(context);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    if (!stats.isDirectory()) throw new Error(`${dir} is not a directory`);
    // The compiler uid owns the cache; run uids never see it (it is not bound into runs).
    if (context.compileUid !== undefined && stats.uid !== context.compileUid) {
      chownSync(dir, context.compileUid, context.compileUid);
    }
    chmodSync(dir, 0o700);
  },
  cacheKeyParts: (version) => ["go", version, ...GO_BUILD_FLAGS, JSON.stringify(GO_ENV)],
  compileScript(context) {
    return {
      command: [
        "/bin/sh",
        "-c",
        [
          "set -e",
          "printf '\\n' >&3",
          "mkdir -p /tmp/src /tmp/out",
          "cat > /tmp/src/main.go",
          "cp /sandbox/wrapper.go /tmp/src/sandbox_wrapper.go",
          "cd /tmp/src",
          `${GO} build ${GO_BUILD_FLAGS.map((flag) => `'${flag}'`).join(" ")} -o /tmp/out/main main.go sandbox_wrapper.go`,
          "exec cat /tmp/out/main >&3",
        ].join("\n"),
      ],
      env: { ...GO_ENV },
      readOnlyBinds: [],
      writableBinds: [[goCacheDir(context), "/gocache"]],
    };
  },
  compileInput: (code) => goSource(code),
  refuseSource: (code) => refuseCgo(code),
  parseCompileError: (stderr, code) => parseGoErrors(stderr, code),
  runEnv: (limits: ProcessLimits) => ({
    GOMAXPROCS: "2",
    // A soft limit: the GC works harder before RLIMIT_DATA makes the runtime abort.
    GOMEMLIMIT: String(Math.floor(limits.memoryBytes * 0.9)),
    GOTRACEBACK: "single",
  }),
};

/** The warm-up program, compiled once through the normal path with the fixed flags. */
export const GO_WARM_UP_PROGRAM = WARM_UP_PROGRAM;

/**
 * A file in the build cache directory that records that the warm-up build ran into this very cache
 * (a cached warm-up binary says nothing about the build cache of another compiler uid).
 *
 * @example existsSync(goWarmUpMarker(context, "1.19.8"))
 */
export function goWarmUpMarker(context: LanguageContext, version: string): string {
  const key = binaryKey([version, ...GO_BUILD_FLAGS, JSON.stringify(GO_ENV), WARM_UP_PROGRAM]).slice(0, 16);
  return join(goCacheDir(context), `.sandbox-warmed-${key}`);
}

function goCacheDir(context: LanguageContext): string {
  // Per compiler uid: files another uid wrote into the cache would not be writable by this one.
  return join(context.cacheDir, `go-build-${context.compileUid ?? "self"}`);
}

/**
 * Turns `go build` output into the first error on the user's code. Errors that point only into
 * the wrapper mean the user's Main is missing or has another signature.
 *
 * @example parseGoErrors("./main.go:4:2: undefined: x\n", code) // { message: "undefined: x", line: 4, ... }
 */
export function parseGoErrors(stderr: string, _code: string): CompileFailure {
  const lines = stderr
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("# command-line-arguments"));
  const shown = lines.map((line) => line.replace(/(^|\s)(?:\.\/|\/tmp\/src\/)/g, "$1")).join("\n");
  const userErrors = lines.flatMap((line) => {
    const match = /(?:^|[\s/])main\.go:(\d+)(?::\d+)?: (.*)$/.exec(line);
    return match?.[1] && match[2] ? [{ line: Number(match[1]), message: match[2] }] : [];
  });
  // The wrapper's own `func main` calls the user's Main: a user `func main` clashes with it.
  if (lines.some((line) => /\bmain redeclared\b/.test(line))) {
    const declared = userErrors.find((error) =>
      /\bdeclaration of main\b|\bmain redeclared\b/.test(error.message),
    );
    return {
      message: `Go code runs from ${SIGNATURE}, not func main (the sandbox's own main calls Main): rename it.`,
      ...(declared ? { line: declared.line } : {}),
      stderr: shown,
    };
  }
  const [first] = userErrors;
  if (first) return { ...first, stderr: shown };
  if (lines.some((line) => line.includes("sandbox_wrapper.go") && /\bMain\b/.test(line))) {
    return { message: `The code must define ${SIGNATURE}.`, stderr: shown };
  }
  return { message: lines[0] ?? "go build failed", stderr: shown };
}
