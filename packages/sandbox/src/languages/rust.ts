import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { binaryKey } from "../binary-cache.ts";
import { probeVersion } from "./probe.ts";
import type { CompiledLanguage, CompileFailure, ToolchainProbe } from "./types.ts";

const exec = promisify(execFile);

/**
 * Debian's rustc, not a rustup one: the serde_json rlibs must come from the same compiler that links
 * the user's code, and it must sit under /usr, the only host directory the sandbox sees.
 */
const RUSTC = "/usr/bin/rustc";
const CARGO = "/usr/bin/cargo";
/** Where Debian's librust-*-dev packages put crate sources. */
const DEBIAN_REGISTRY = "/usr/share/cargo/registry";

/** Fixed flags, part of the cache key. opt-level=0: 0.7 s per compile against 2.5 s at 1 (measured). */
export const RUSTC_FLAGS = [
  "--edition",
  "2021",
  "--crate-type",
  "bin",
  "--crate-name",
  "main",
  "-C",
  "opt-level=0",
  "-C",
  "debuginfo=0",
  "-C",
  "strip=debuginfo",
] as const;

const DEPS_MANIFEST = `[package]
name = "sandbox-deps"
version = "0.0.0"
edition = "2021"

[dependencies]
serde_json = "1"

[profile.release]
debug = false
`;

const CARGO_CONFIG = `[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "${DEBIAN_REGISTRY}"

[net]
offline = true
`;

const SIGNATURE = "fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>";

/** The prebuilt crates of each cache directory: the directory and serde_json's rlib file name. */
const prepared = new Map<string, { dir: string; serdeJson: string }>();

function serdeJsonSource(): string | undefined {
  if (!existsSync(DEBIAN_REGISTRY)) return undefined;
  const versions = readdirSync(DEBIAN_REGISTRY).filter((name) => /^serde_json-\d/.test(name));
  return versions.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}

async function probeRust(): Promise<ToolchainProbe> {
  const rustc = await probeVersion(
    RUSTC,
    ["--version"],
    /rustc (\S+)/,
    "install Debian's compiler with `apt-get install rustc cargo`",
  );
  if (!rustc.isAvailable) return rustc;
  const cargo = await probeVersion(
    CARGO,
    ["--version"],
    /cargo (\S+)/,
    "install it with `apt-get install cargo`",
  );
  if (!cargo.isAvailable) return cargo;
  const source = serdeJsonSource();
  if (!source) {
    return {
      isAvailable: false,
      reason: "serde_json sources are missing; install them with `apt-get install librust-serde-json-dev`",
    };
  }
  return { isAvailable: true, version: `${rustc.version} (${source})` };
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Builds serde_json and its dependencies from Debian's sources once per cache directory and
 * toolchain, with cargo offline. This runs the crates' build scripts on the host: they come from
 * Debian packages, like the compiler itself, never from a user. Several processes may share the
 * cache directory, so one builds under a lock directory and the others wait for the result.
 */
async function buildDeps(cacheDir: string): Promise<{ dir: string; serdeJson: string }> {
  const source = serdeJsonSource() ?? "none";
  const [rustc, cargo] = await Promise.all([
    exec(RUSTC, ["--version"], { env: { PATH: "/usr/bin:/bin" } }),
    exec(CARGO, ["--version"], { env: { PATH: "/usr/bin:/bin" } }),
  ]);
  const key = binaryKey([rustc.stdout, cargo.stdout, source, DEPS_MANIFEST, CARGO_CONFIG]).slice(0, 16);
  const dir = join(cacheDir, `rust-deps-${key}`);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  while (!existsSync(join(dir, "serde_json.rlib-name"))) {
    try {
      mkdirSync(lock);
    } catch {
      // Someone else is building; a lock older than 15 minutes belongs to a process that died.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for another process to build serde_json");
      await sleep(250);
      continue;
    }
    try {
      if (!existsSync(join(dir, "serde_json.rlib-name"))) await buildDepsInto(cacheDir, dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return { dir, serdeJson: readFileSync(join(dir, "serde_json.rlib-name"), "utf8").trim() };
}

async function buildDepsInto(cacheDir: string, dir: string): Promise<void> {
  const work = join(cacheDir, `rust-build-${randomBytes(6).toString("hex")}`);
  try {
    mkdirSync(join(work, "project", "src"), { recursive: true });
    mkdirSync(join(work, "cargo-home"), { recursive: true });
    writeFileSync(join(work, "project", "Cargo.toml"), DEPS_MANIFEST);
    writeFileSync(join(work, "project", "src", "main.rs"), "fn main() {}\n");
    writeFileSync(join(work, "cargo-home", "config.toml"), CARGO_CONFIG);
    await exec(CARGO, ["build", "--offline", "--release", "--quiet"], {
      cwd: join(work, "project"),
      env: {
        PATH: "/usr/bin:/bin",
        HOME: work,
        CARGO_HOME: join(work, "cargo-home"),
        CARGO_TARGET_DIR: join(work, "target"),
        RUSTC,
      },
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const built = join(work, "target", "release", "deps");
    const staging = `${dir}.staging-${randomBytes(4).toString("hex")}`;
    mkdirSync(staging, { mode: 0o755 });
    let serdeJson: string | undefined;
    for (const name of readdirSync(built)) {
      if (!name.endsWith(".rlib")) continue;
      copyFileSync(join(built, name), join(staging, name));
      chmodSync(join(staging, name), 0o644);
      if (name.startsWith("libserde_json-")) serdeJson = name;
    }
    if (!serdeJson) throw new Error("cargo built no serde_json rlib");
    writeFileSync(join(staging, "serde_json.rlib-name"), `${serdeJson}\n`, { mode: 0o644 });
    chmodSync(staging, 0o755);
    renameSync(staging, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Rust: the user's `fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>`,
 * with runners/wrapper.rs appended (so line numbers stay the user's) and serde_json linked with --extern.
 */
export const rust: CompiledLanguage = {
  kind: "compiled",
  language: "rust",
  probe: probeRust,
  async prepare(context) {
    if (prepared.has(context.cacheDir)) return;
    prepared.set(context.cacheDir, await buildDeps(context.cacheDir));
  },
  cacheKeyParts: (version) => ["rust", version, ...RUSTC_FLAGS],
  compileScript(context) {
    const deps = prepared.get(context.cacheDir);
    if (!deps) throw new Error("rust.prepare() has not run");
    const rustc = [
      RUSTC,
      ...RUSTC_FLAGS,
      "--error-format=json",
      "-L",
      "dependency=/deps",
      "--extern",
      `serde_json=/deps/${deps.serdeJson}`,
      "-o",
      "/tmp/out/main",
      "main.rs",
    ].join(" ");
    return {
      command: [
        "/bin/sh",
        "-c",
        [
          "set -e",
          "printf '\\n' >&3",
          "mkdir -p /tmp/src /tmp/out",
          "cat - /sandbox/wrapper.rs > /tmp/src/main.rs",
          "cd /tmp/src",
          rustc,
          "exec cat /tmp/out/main >&3",
        ].join("\n"),
      ],
      env: {},
      readOnlyBinds: [[deps.dir, "/deps"]],
      writableBinds: [],
    };
  },
  compileInput: (code) => code,
  parseCompileError: (stderr, code) => parseRustErrors(stderr, code),
  runEnv: () => ({ RUST_BACKTRACE: "0" }),
};

interface RustDiagnostic {
  message: string;
  level: string;
  rendered?: string | null;
  spans?: { file_name: string; line_start: number; is_primary: boolean }[];
}

/**
 * Reads rustc's JSON diagnostics: the first error with a primary span in the user's lines gives the
 * message and line. Errors that point only into the appended wrapper mean main_fn is missing or has
 * another signature.
 *
 * @example parseRustErrors(stderr, code) // { message: "cannot find value `x` in this scope", line: 3, ... }
 */
export function parseRustErrors(stderr: string, code: string): CompileFailure {
  const userLines = code.split("\n").length;
  const errors: RustDiagnostic[] = [];
  const other: string[] = [];
  for (const line of stderr.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const diagnostic = JSON.parse(line) as RustDiagnostic;
      if (diagnostic.level === "error" && !diagnostic.message.startsWith("aborting due to")) {
        errors.push(diagnostic);
      }
    } catch {
      other.push(line);
    }
  }
  const shown = [...errors.map((error) => (error.rendered ?? error.message).trimEnd()), ...other].join("\n");
  for (const error of errors) {
    const span = error.spans?.find((candidate) => candidate.is_primary) ?? error.spans?.[0];
    // The wrapper's own `fn main` calls the user's entry point: a user `fn main` clashes with it.
    if (error.message.startsWith("the name `main` is defined multiple times")) {
      return {
        message: `Rust code runs from ${SIGNATURE}, not fn main (the sandbox's own main calls main_fn): rename it.`,
        ...(span?.file_name.endsWith("main.rs") && span.line_start <= userLines
          ? { line: span.line_start }
          : {}),
        stderr: shown,
      };
    }
    if (span?.file_name.endsWith("main.rs") && span.line_start <= userLines) {
      return { message: error.message, line: span.line_start, stderr: shown };
    }
  }
  const isInWrapper = errors.some((error) =>
    error.spans?.some((span) => span.file_name.endsWith("main.rs") && span.line_start > userLines),
  );
  if (isInWrapper) {
    return {
      message: `The code must define ${SIGNATURE} (${errors[0]?.message ?? "it does not match"}).`,
      stderr: shown,
    };
  }
  return { message: errors[0]?.message ?? other[0] ?? "rustc failed", stderr: shown };
}
