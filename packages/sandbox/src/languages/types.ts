import type { HostTools } from "../host.ts";
import type { Language, ProcessLimits } from "../limits.ts";

/** A language's toolchain on this host: its version, or why it cannot run. */
export type ToolchainProbe = { isAvailable: true; version: string } | { isAvailable: false; reason: string };

/** Where the shared files live on the host, and the tools to build sandboxes with. */
export interface LanguageContext {
  tools: HostTools;
  /** Host directory with the runners and wrappers, bound read-only at /sandbox. */
  assetsDir: string;
  /** Host directory for toolchain caches (Go build cache, prebuilt Rust crates). */
  cacheDir: string;
  /** The uid compilers run as (undefined when the service is not root). */
  compileUid: number | undefined;
  /** The pinned Node.js binary, installed in the cache directory (see languages/javascript.ts). */
  nodeRuntime?: string | undefined;
  /** isolated-vm's native module, installed in the cache directory; unset when it cannot load here. */
  isolateBinding?: string | undefined;
}

/** A compile error in the user's terms. */
export interface CompileFailure {
  message: string;
  line?: number;
  /** What the user sees as stderr: the compiler's messages, without the sandbox's internals. */
  stderr: string;
}

/** Python and JavaScript: a runner process reads `{code, input}` on stdin. */
export interface InterpretedLanguage {
  kind: "interpreted";
  language: Language;
  probe(): Promise<ToolchainProbe>;
  /** Host files the interpreter needs besides /usr, bound read-only. */
  runtimeBinds?(context: LanguageContext): [source: string, destination: string][];
  /** The resident runner: Python's zygote, or Node.js in session mode (see resident.ts). */
  command(limits: ProcessLimits): string[];
  env(limits: ProcessLimits): Record<string, string>;
}

/** Go and Rust: compiled once in a sandbox, cached, then run from /sandbox/main with the input on stdin. */
export interface CompiledLanguage {
  kind: "compiled";
  language: Language;
  probe(): Promise<ToolchainProbe>;
  /** One-time work before the first compile (prebuilt crates, a warm build cache). */
  prepare(context: LanguageContext): Promise<void>;
  /** Everything besides the code that changes the binary. */
  cacheKeyParts(toolchainVersion: string): string[];
  /** A shell script run in the compile sandbox: reads the source on stdin, writes the binary to fd 3. */
  compileScript(context: LanguageContext): {
    command: string[];
    env: Record<string, string>;
    readOnlyBinds: [string, string][];
    writableBinds: [string, string][];
  };
  /** The stdin of the compile script for `code`. */
  compileInput(code: string): string;
  /** A compile error found without compiling (a feature the sandbox cannot build), or undefined. */
  refuseSource?(code: string): CompileFailure | undefined;
  parseCompileError(stderr: string, code: string): CompileFailure;
  runEnv(limits: ProcessLimits): Record<string, string>;
}

export type LanguageDefinition = InterpretedLanguage | CompiledLanguage;
