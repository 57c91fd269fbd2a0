import { execFile } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { hostSeccompArch, type SeccompArch } from "./seccomp.ts";

const run = promisify(execFile);

/** The host programs the sandbox is built from. */
export interface HostTools {
  bwrap: string;
  bwrapVersion: string;
  /** bwrap ≥ 0.8 can forbid nested user namespaces (the seccomp filter also does). */
  hasDisableUserns: boolean;
  /** Runs inside the sandbox, so it must live under /usr. */
  prlimit: string;
  /** As root, each sandbox is spawned as its own unprivileged uid; otherwise as the service's uid. */
  isRoot: boolean;
  arch: SeccompArch;
  /** Harmless parts of /etc the toolchains need (cc is /etc/alternatives/cc on Debian), bound read-only. */
  etcBinds: string[];
  /**
   * Descriptors this service inherited without close-on-exec (from a supervisor, a shell, a CI
   * runner). Node passes them on to every child, so the sandbox chain closes them before bwrap.
   */
  inheritedFds: number[];
  /** bash, to close descriptors above 9 (dash cannot). */
  bash: string | undefined;
}

export type HostProbe = { isReady: true; tools: HostTools } | { isReady: false; reason: string };

/** How to get each missing piece on Debian and Ubuntu. */
export const INSTALL_HINTS = {
  bwrap: "bubblewrap (bwrap) is not installed; install it with `apt-get install bubblewrap`",
  prlimit: "prlimit is missing; install util-linux (`apt-get install util-linux`)",
} as const;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function firstExecutable(candidates: readonly string[]): string | undefined {
  return candidates.find(executable);
}

/**
 * Finds bwrap and prlimit and checks that bwrap can really create its namespaces here
 * (inside Docker's default seccomp profile it cannot). Never throws: a host that cannot isolate
 * gets `isReady: false` and a reason that says what to install or allow.
 *
 * @example const host = await probeHost({}); if (!host.isReady) console.error(host.reason);
 */
export async function probeHost(options: { bwrapPath?: string | undefined }): Promise<HostProbe> {
  if (process.platform !== "linux") return { isReady: false, reason: "the sandbox needs Linux namespaces" };
  const arch = hostSeccompArch();
  if (!arch) return { isReady: false, reason: `no seccomp policy for the ${process.arch} architecture` };
  const bwrap = options.bwrapPath
    ? executable(options.bwrapPath)
      ? options.bwrapPath
      : undefined
    : firstExecutable(["/usr/bin/bwrap", "/usr/local/bin/bwrap"]);
  if (!bwrap) return { isReady: false, reason: INSTALL_HINTS.bwrap };
  const prlimit = firstExecutable(["/usr/bin/prlimit"]);
  if (!prlimit) return { isReady: false, reason: INSTALL_HINTS.prlimit };
  const isRoot = process.getuid?.() === 0;

  let bwrapVersion = "unknown";
  let hasDisableUserns = false;
  try {
    const version = await run(bwrap, ["--version"], { env: { PATH: "/usr/bin:/bin" } });
    bwrapVersion = version.stdout.trim().replace(/^bubblewrap\s+/, "");
    const help = await run(bwrap, ["--help"], { env: { PATH: "/usr/bin:/bin" } });
    hasDisableUserns = help.stdout.includes("--disable-userns");
  } catch (error) {
    return { isReady: false, reason: `${bwrap} does not run: ${(error as Error).message}` };
  }
  // Symlinks and the linker cache only: nothing in them names a user, a secret or a host service.
  const etcBinds = ["/etc/alternatives", "/etc/ld.so.cache"].filter((path) => existsSync(path));
  const inheritedFds = inheritedDescriptors();
  const bash = firstExecutable(["/bin/bash", "/usr/bin/bash"]);
  if (inheritedFds.length > 0 && !bash) {
    return {
      isReady: false,
      reason: `this service inherited open descriptors ${inheritedFds.join(", ")} that would reach the sandbox, and bash (needed to close them) is missing`,
    };
  }
  return {
    isReady: true,
    tools: {
      bwrap,
      bwrapVersion,
      hasDisableUserns,
      prlimit,
      isRoot,
      arch,
      etcBinds,
      inheritedFds,
      bash,
    },
  };
}

const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above stderr of this process that a child would inherit: those without O_CLOEXEC
 * (everything Node opens itself has it).
 *
 * @example inheritedDescriptors() // [251] when a CI runner left a pipe open
 */
export function inheritedDescriptors(): number[] {
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return found;
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (flags?.[1] && (Number.parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // Closed meanwhile (e.g. the directory handle of readdirSync itself).
    }
  }
  return found.sort((a, b) => a - b);
}

/**
 * Creates (or checks) a directory the host owns and others may only traverse. bwrap opens bind
 * sources as the sandbox uid, so every ancestor must be searchable by others; a directory someone
 * else owns or can write to is refused, since its files end up executed in the sandbox.
 *
 * @example ensurePrivateDir("/var/cache/app-sandbox", 0o711);
 */
export function ensurePrivateDir(path: string, mode: number): void {
  mkdirSync(path, { recursive: true, mode });
  const stats = lstatSync(path);
  const uid = process.getuid?.() ?? 0;
  if (!stats.isDirectory()) throw new Error(`${path} is not a directory`);
  if (stats.uid !== uid) throw new Error(`${path} belongs to uid ${stats.uid}, not to this service (${uid})`);
  if ((stats.mode & 0o022) !== 0) throw new Error(`${path} is writable by group or others`);
  if ((stats.mode & 0o777) !== mode) chmodSync(path, mode);
  let current = path;
  while (uid === 0 && current !== dirname(current)) {
    const mode = statSync(current).mode;
    if ((mode & 0o001) === 0) {
      throw new Error(
        `${current} is not searchable by others (mode ${(mode & 0o777).toString(8)}); the sandbox uids cannot reach ${path}`,
      );
    }
    current = dirname(current);
  }
}

/**
 * Starts a sandbox that does nothing: null when it exits cleanly, else why this host cannot make one
 * and what to change.
 *
 * @example const reason = await sandboxStartFailure(() => start({ command: ["/usr/bin/true"], limits, env: {} }));
 */
export async function sandboxStartFailure(
  start: () => { run(input: string): Promise<{ exitCode: number | null; stderr: string }> },
): Promise<string | null> {
  let smoke: { exitCode: number | null; stderr: string };
  try {
    smoke = await start().run("");
  } catch (error) {
    // spawn itself failed, e.g. the uid cannot be switched to.
    smoke = { exitCode: null, stderr: (error as Error).message };
  }
  if (smoke.exitCode === 0) return null;
  const detail = smoke.stderr.trim() || `exit ${smoke.exitCode}`;
  const hint = /EINVAL|EPERM|setuid|setgid/i.test(detail)
    ? "the sandbox uids are not usable here (in a rootless container, pass a uidBase inside the mapped range)"
    : "inside a container, allow user namespaces (e.g. an unconfined seccomp profile)";
  return `bubblewrap could not create a sandbox on this host (${detail}); ${hint}`;
}
