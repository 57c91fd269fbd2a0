export const LANGUAGES = ["python", "javascript", "go", "rust"] as const;
export type Language = (typeof LANGUAGES)[number];

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** What a caller may choose per run, with the bounds the HTTP API also enforces. */
export const RUN_LIMIT_BOUNDS = {
  timeoutMs: { min: 100, max: 60_000, default: 10_000 },
  memoryMb: { min: 32, max: 2048, default: 256 },
} as const;

/** stdout and stderr together; past this the run is stopped and `truncated` is set. */
export const OUTPUT_LIMIT_BYTES = MiB;
/** The JSON result on fd 3. */
export const RESULT_LIMIT_BYTES = MiB;
/** A compiled binary sent back from the compile sandbox. */
export const BINARY_LIMIT_BYTES = 64 * MiB;

/** Everything enforced on one sandboxed process tree. */
export interface ProcessLimits {
  /** Host-side timer; the whole process group is killed when it fires. */
  wallMs: number;
  /** RLIMIT_CPU, per process: a backstop for the wall timer. */
  cpuSeconds: number;
  /** RLIMIT_DATA, or memory.max when a cgroup is in use. */
  memoryBytes: number;
  /** RLIMIT_AS: runtimes reserve address space they never touch, so this is memory plus headroom. */
  addressSpaceBytes: number;
  /** RLIMIT_DATA when no cgroup is in use: memory plus what the runtime reserves writable but never fills. */
  dataBytes: number;
  /** RLIMIT_NPROC (threads count too), or pids.max with a cgroup. */
  processes: number;
  openFiles: number;
  fileSizeBytes: number;
  tmpBytes: number;
  shmBytes: number;
  outputBytes: number;
}

/** Extra address space each runtime needs beyond the memory limit (measured: node needs ~1 GiB of reservations to start, Go ~700 MiB). */
const ADDRESS_SPACE_HEADROOM: Record<Language, number> = {
  python: 256 * MiB,
  javascript: 1536 * MiB,
  go: 1024 * MiB,
  rust: 256 * MiB,
};

/**
 * Writable reservations RLIMIT_DATA counts although they hold no user data: Node 24's V8 reserves its
 * JIT code range (512 MiB) read-write at start (measured: it aborts with "Failed to reserve virtual
 * memory for CodeRange" under 580 MiB of RLIMIT_DATA, and starts at 24 MiB of heap above that).
 */
const DATA_HEADROOM: Record<Language, number> = {
  python: 0,
  javascript: 512 * MiB,
  go: 0,
  rust: 0,
};

/**
 * A JavaScript process runs the nodes of one run in turn, and RLIMIT_CPU counts them all: it is
 * replaced once it has used this much (resident.ts), so each node still gets its full CPU time.
 * Python forks each node, whose count starts at zero.
 */
export const RESIDENT_CPU_HEADROOM_SECONDS: Record<Language, number> = {
  python: 0,
  javascript: 2,
  go: 0,
  rust: 0,
};

/**
 * The limits of a user program's run.
 *
 * @example runLimits("python", { timeoutMs: 10_000, memoryMb: 256 }).memoryBytes // 268435456
 */
export function runLimits(
  language: Language,
  chosen: { timeoutMs: number; memoryMb: number },
): ProcessLimits {
  const memoryBytes = chosen.memoryMb * MiB;
  return {
    wallMs: chosen.timeoutMs,
    // Two busy threads spend CPU time twice as fast as the wall clock; the wall timer stays the real limit.
    cpuSeconds: Math.ceil(chosen.timeoutMs / 1000) * 2 + 1 + RESIDENT_CPU_HEADROOM_SECONDS[language],
    memoryBytes,
    addressSpaceBytes: memoryBytes + ADDRESS_SPACE_HEADROOM[language],
    dataBytes: memoryBytes + DATA_HEADROOM[language],
    // Node starts ~11 threads and Go one per P plus a few; a fork bomb stops here.
    processes: 32,
    openFiles: 256,
    fileSizeBytes: 16 * MiB,
    tmpBytes: 64 * MiB,
    shmBytes: 4 * MiB,
    outputBytes: OUTPUT_LIMIT_BYTES,
  };
}

/**
 * The limits of a compiler run (go build, rustc): larger, since they only run the toolchain on the code.
 *
 * @example compileLimits(30_000).addressSpaceBytes // 4 GiB: rustc maps libLLVM, go build panics under 512 MiB
 */
export function compileLimits(wallMs: number): ProcessLimits {
  return {
    wallMs,
    cpuSeconds: Math.ceil(wallMs / 1000) * 2 + 1,
    memoryBytes: GiB,
    addressSpaceBytes: 4 * GiB,
    dataBytes: GiB,
    processes: 256,
    openFiles: 1024,
    fileSizeBytes: 256 * MiB,
    tmpBytes: 512 * MiB,
    shmBytes: 4 * MiB,
    outputBytes: OUTPUT_LIMIT_BYTES,
  };
}

/**
 * The `prlimit` options that apply `limits` inside the sandbox (after bwrap made the user namespace,
 * which is where RLIMIT_NPROC is counted). Soft and hard are equal so the code cannot raise them.
 *
 * @example prlimitArgs(runLimits("go", { timeoutMs: 1000, memoryMb: 64 }), { memoryByRlimit: true })
 */
export function prlimitArgs(limits: ProcessLimits, options: { memoryByRlimit: boolean }): string[] {
  const args = [
    `--cpu=${limits.cpuSeconds}`,
    `--nproc=${limits.processes}`,
    `--nofile=${limits.openFiles}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--as=${limits.addressSpaceBytes}`,
    "--core=0",
    "--msgqueue=0",
  ];
  // With a cgroup, memory.max covers the whole tree, including page cache and tmpfs pages,
  // so RLIMIT_DATA would only make runtimes fail earlier than the user asked for.
  if (options.memoryByRlimit) args.push(`--data=${limits.dataBytes}`);
  return args;
}
