import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./index.ts";
import { eventually, killOwnedBy, userProcessesOwnedBy } from "./testing/processes.ts";

// A uid range of its own, so leftovers of this file's runs can be told apart from any other sandbox.
const UID_BASE = 1_600_000_000;
const UID_LAST = UID_BASE + 1024;
const SECRET = `sandbox-secret-${process.pid}-do-not-leak`;

let sandbox: Sandbox;
let hostDir: string;
let serviceServer: Server;
let servicePort: number;
let accepted = 0;

beforeAll(async () => {
  // What a leaked environment would expose: the test process carries a secret like the service does.
  process.env.SANDBOX_TEST_SECRET = SECRET;
  // Stands for the service's data directory; readable by everyone, so only the mount namespace hides it.
  hostDir = mkdtempSync(join(tmpdir(), "sandbox-host-"));
  chmodSync(hostDir, 0o777);
  writeFileSync(join(hostDir, "secret.txt"), SECRET, { mode: 0o644 });
  mkdirSync(join(hostDir, "drop"), { mode: 0o777 });
  chmodSync(join(hostDir, "drop"), 0o777);
  serviceServer = createServer((socket) => {
    accepted++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => serviceServer.listen(0, "127.0.0.1", resolve));
  servicePort = (serviceServer.address() as { port: number }).port;
  // No warm pool: every process in this uid range then belongs to a run in progress.
  sandbox = await createSandbox({ uidBase: UID_BASE, warmPerLanguage: 0, concurrency: 2 });
  expect(sandbox.runtimes().isAvailable).toBe(true);
  // On a fresh machine this builds serde_json once (shared with the other test files through a lock).
  await sandbox.warmUp();
}, 240_000);

afterAll(async () => {
  await sandbox?.close();
  serviceServer?.close();
  killOwnedBy(UID_BASE, UID_LAST);
  rmSync(hostDir, { recursive: true, force: true });
  delete process.env.SANDBOX_TEST_SECRET;
});

function python(code: string, input: Record<string, unknown> = {}, extra: { timeoutMs?: number } = {}) {
  return sandbox.run({ language: "python", code, input, ...extra });
}

/** Nothing user code started is alive; the workspace's idle Python zygote may be. */
async function noLeftovers(): Promise<boolean> {
  return eventually(() => userProcessesOwnedBy(UID_BASE, UID_LAST).length === 0);
}

describe("processes", () => {
  it("stops a fork bomb at the process limit and leaves nothing behind", async () => {
    const counted = await python(`
import os, time
def main(inputs):
    forked = 0
    for _ in range(500):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        forked += 1
    return {"forked": forked}
`);
    expect(counted.error).toBeNull();
    expect(counted.output?.forked).toBeGreaterThan(0);
    expect(counted.output?.forked).toBeLessThan(32);
    expect(await noLeftovers()).toBe(true);

    const bomb = await python(
      "import os\ndef main(inputs):\n    while True:\n        os.fork()\n",
      {},
      { timeoutMs: 1500 },
    );
    expect(bomb.output).toBeNull();
    expect(bomb.error).not.toBeNull();
    expect(await noLeftovers()).toBe(true);
  });

  it("kills an infinite loop at the timeout, with the daemons it started", async () => {
    const result = await python(
      `
import os, signal, time
def main(inputs):
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)
    while True:
        pass
`,
      {},
      { timeoutMs: 1000 },
    );
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.error?.kind).toBe("timeout");
    expect(await noLeftovers()).toBe(true);
  });

  it("runs the code as an unprivileged uid with no groups or capabilities, under seccomp, alone in its pid namespace", async () => {
    const result = await python(
      `
import os
def main(inputs):
    status = open("/proc/self/status").read()
    fields = {line.split(":")[0]: line.split(":", 1)[1].strip() for line in status.splitlines()}
    caps = {name: fields[name] for name in ("CapInh", "CapPrm", "CapEff", "CapAmb", "NoNewPrivs", "Seccomp")}
    return {"uid": os.getuid(), "groups": os.getgroups(), "caps": caps,
            "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "sees_host": os.path.exists("/proc/%d" % inputs["host_pid"])}
`,
      { host_pid: process.pid },
    );
    expect(result.error).toBeNull();
    expect(result.output?.uid).not.toBe(0);
    expect(result.output?.groups).toEqual([]);
    expect(result.output?.caps).toEqual({
      CapInh: "0000000000000000",
      CapPrm: "0000000000000000",
      CapEff: "0000000000000000",
      CapAmb: "0000000000000000",
      NoNewPrivs: "1",
      // 2: a seccomp filter is loaded.
      Seccomp: "2",
    });
    expect(((result.output?.pids ?? [1000]) as number[]).every((pid) => pid < 100)).toBe(true);
    expect(result.output?.sees_host).toBe(false);
  });

  it("cannot kill the sandbox's init or the service; killing its zygote fails only its own run", async () => {
    const result = await python(
      `
import os, signal
def main(inputs):
    outcomes = {}
    for name, pid in (("init", 1), ("service", inputs["host_pid"])):
        try:
            os.kill(pid, signal.SIGKILL)
            outcomes[name] = "sent"
        except OSError as error:
            outcomes[name] = type(error).__name__
    try:
        os.kill(-1, signal.SIGTERM)
    except OSError:
        pass
    return outcomes
`,
      { host_pid: process.pid },
    );
    // The namespace's init ignores signals from inside, and the zygote SIGTERM: the run survived to report.
    expect(result.error).toBeNull();
    expect(result.output).toEqual({ init: "sent", service: "ProcessLookupError" });
    const parricide = await python(
      "import os, signal\ndef main(inputs):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return {}\n",
    );
    expect(parricide.output).toBeNull();
    const next = await python("import os\ndef main(inputs):\n    return {'ok': True}\n");
    expect(next.output).toEqual({ ok: true });
    expect(await noLeftovers()).toBe(true);
  });
});

describe("memory and output", () => {
  it("refuses a 2 GiB allocation in every language", async () => {
    const programs = {
      python: "def main(inputs):\n    data = bytearray(2 * 1024 ** 3)\n    return {'n': len(data)}\n",
      javascript:
        "function main() {\n  const data = Buffer.alloc(2 * 1024 ** 3, 1);\n  return { n: data.length };\n}\n",
      go: 'package main\n\nfunc Main(inputs map[string]any) (map[string]any, error) {\n\tdata := make([]byte, 2<<30)\n\tfor i := range data {\n\t\tdata[i] = 1\n\t}\n\treturn map[string]any{"n": len(data)}, nil\n}\n',
      rust: 'fn main_fn(_inputs: serde_json::Value) -> Result<serde_json::Value, String> {\n    let data = vec![1u8; 2 << 30];\n    Ok(serde_json::json!({"n": data.len()}))\n}\n',
    } as const;
    const results = await Promise.all(
      Object.entries(programs).map(async ([language, code]) => [
        language,
        await sandbox.run({ language: language as keyof typeof programs, code, input: {} }),
      ]),
    );
    for (const [language, result] of results as [string, Awaited<ReturnType<Sandbox["run"]>>][]) {
      expect(result.output, language).toBeNull();
      expect(result.error?.kind, `${language}: ${result.error?.message} ${result.stderr}`).toBe("memory");
    }
  });

  it("closes the memory doors rlimits leave open (shared anonymous maps, memfd, SysV shm) and SysV IPC that outlives a node", async () => {
    const result = await python(`
import ctypes, errno, mmap
def main(inputs):
    libc = ctypes.CDLL(None, use_errno=True)
    outcomes = {}
    try:
        mmap.mmap(-1, 1 << 30)
        outcomes["shared_mmap"] = "mapped"
    except OSError as error:
        outcomes["shared_mmap"] = errno.errorcode[error.errno]
    fd = libc.memfd_create(b"x", 0)
    outcomes["memfd"] = "created" if fd >= 0 else errno.errorcode[ctypes.get_errno()]
    shm = libc.shmget(0, ctypes.c_size_t(1 << 30), 0o1000 | 0o600)
    outcomes["shmget"] = "created" if shm >= 0 else errno.errorcode[ctypes.get_errno()]
    queue = libc.msgget(0, 0o1000 | 0o600)
    outcomes["msgget"] = "created" if queue >= 0 else errno.errorcode[ctypes.get_errno()]
    semaphores = libc.semget(0, 1, 0o1000 | 0o600)
    outcomes["semget"] = "created" if semaphores >= 0 else errno.errorcode[ctypes.get_errno()]
    return outcomes
`);
    expect(result.error).toBeNull();
    expect(result.output).toEqual({
      shared_mmap: "EPERM",
      memfd: "EPERM",
      shmget: "EPERM",
      msgget: "EPERM",
      semget: "EPERM",
    });
  });

  it("stops a program that prints forever at 1 MiB and flags the output as truncated", async () => {
    const result = await python("def main(inputs):\n    while True:\n        print('x' * 1000)\n");
    expect(result.truncated).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.error?.kind).toBe("output_limit");
    expect(result.stdout.length + result.stderr.length).toBeLessThanOrEqual(1024 * 1024);
    expect(result.stdout.length).toBeGreaterThan(1000);
    expect(await noLeftovers()).toBe(true);
  });

  it("caps files: a decompressed bomb stops at the file size limit, many files at the tmpfs size", async () => {
    const result = await python(`
import errno, os, zlib
def main(inputs):
    bomb = zlib.compress(b"\\0" * (4 << 20), 9)
    outcome = {"compressed": len(bomb)}
    try:
        with open("/tmp/bomb.bin", "wb", buffering=0) as out:
            for _ in range(64):
                out.write(zlib.decompress(bomb))
        outcome["bomb"] = "written"
    except OSError as error:
        outcome["bomb"] = errno.errorcode[error.errno]
    outcome["bomb_size"] = os.path.getsize("/tmp/bomb.bin")
    try:
        with open("/tmp/sparse.bin", "wb") as out:
            out.seek(1 << 40)
            out.write(b"x")
        outcome["sparse"] = "written"
    except OSError as error:
        outcome["sparse"] = errno.errorcode[error.errno]
    total = 0
    try:
        for index in range(40):
            with open("/tmp/fill-%d.bin" % index, "wb", buffering=0) as out:
                for _ in range(8):
                    total += out.write(b"\\1" * (1 << 20))
        outcome["fill"] = "written"
    except OSError as error:
        outcome["fill"] = errno.errorcode[error.errno]
    outcome["fill_total"] = total
    return outcome
`);
    expect(result.error).toBeNull();
    expect(result.output?.bomb).toBe("EFBIG");
    expect(result.output?.bomb_size).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(result.output?.sparse).toBe("EFBIG");
    expect(result.output?.fill).toBe("ENOSPC");
    expect(result.output?.fill_total).toBeLessThanOrEqual(64 * 1024 * 1024);
  });
});

describe("network", () => {
  it("has no network: the service's port, 127.0.0.1:5432 and the outside are unreachable", async () => {
    const result = await python(
      `
import errno, socket
def attempt(family, address):
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(address)
        return "connected"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error))
    finally:
        sock.close()
def main(inputs):
    return {
        "service": attempt(socket.AF_INET, ("127.0.0.1", inputs["port"])),
        "postgres": attempt(socket.AF_INET, ("127.0.0.1", 5432)),
        "ipv6": attempt(socket.AF_INET6, ("::1", inputs["port"])),
        "outside": attempt(socket.AF_INET, ("1.1.1.1", 53)),
        "interfaces": [line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:]],
    }
`,
      { port: servicePort },
    );
    expect(result.error).toBeNull();
    expect(result.output).toMatchObject({
      service: "ECONNREFUSED",
      postgres: "ECONNREFUSED",
      outside: "ENETUNREACH",
      interfaces: ["lo"],
    });
    expect(result.output?.ipv6).not.toBe("connected");
    expect(accepted).toBe(0);
  });

  it("refuses exotic socket families and namespace tricks (seccomp)", async () => {
    const result = await python(`
import ctypes, errno, platform, socket
NUMBERS = {
    "x86_64": {"unshare": 272, "mount": 165, "keyctl": 250, "ptrace": 101, "bpf": 321, "io_uring_setup": 425},
    "aarch64": {"unshare": 97, "mount": 40, "keyctl": 219, "ptrace": 117, "bpf": 280, "io_uring_setup": 425},
}[platform.machine()]
def main(inputs):
    libc = ctypes.CDLL(None, use_errno=True)
    out = {}
    for name, family in (("packet", 17), ("netlink", 16), ("vsock", 40)):
        try:
            socket.socket(family, socket.SOCK_RAW if family != 40 else socket.SOCK_STREAM).close()
            out[name] = "opened"
        except OSError as error:
            out[name] = errno.errorcode[error.errno]
    for name, syscall, args in (("unshare_user", "unshare", (0x10000000,)), ("mount", "mount", (0, 0, 0, 0, 0)),
                                ("keyctl", "keyctl", (0, 0)), ("ptrace", "ptrace", (16, 1, 0, 0)),
                                ("bpf", "bpf", (0, 0, 0)), ("io_uring_setup", "io_uring_setup", (1, 0))):
        ret = libc.syscall(NUMBERS[syscall], *args)
        out[name] = "allowed" if ret >= 0 else errno.errorcode[ctypes.get_errno()]
    return out
`);
    expect(result.error).toBeNull();
    expect(result.output).toEqual({
      packet: "EAFNOSUPPORT",
      netlink: "EAFNOSUPPORT",
      vsock: "EAFNOSUPPORT",
      unshare_user: "EPERM",
      mount: "EPERM",
      keyctl: "EPERM",
      ptrace: "EPERM",
      bpf: "EPERM",
      io_uring_setup: "EPERM",
    });
  });
});

describe("filesystem and environment", () => {
  it("cannot read /etc/shadow, the service's data directory or another process's environment", async () => {
    const result = await python(
      `
import os
def attempt(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return type(error).__name__
def main(inputs):
    environments = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            environments[pid] = attempt("/proc/%s/environ" % pid)
    return {
        "shadow": attempt("/etc/shadow"),
        "passwd": attempt("/etc/passwd"),
        "secret": attempt(inputs["secret_path"]),
        "data_dir": os.path.exists(inputs["data_dir"]),
        "root_home": os.path.exists("/root"),
        "init_root": attempt("/proc/1/root/etc/shadow"),
        "environ": dict(os.environ),
        "environments": environments,
    }
`,
      { secret_path: join(hostDir, "secret.txt"), data_dir: hostDir },
    );
    expect(result.error).toBeNull();
    const output = result.output as Record<string, unknown>;
    expect(output.shadow).toBe("FileNotFoundError");
    expect(output.passwd).toBe("FileNotFoundError");
    expect(output.secret).toBe("FileNotFoundError");
    expect(output.data_dir).toBe(false);
    expect(output.root_home).toBe(false);
    expect(output.init_root).toBe("FileNotFoundError");
    expect(Object.keys(output.environ as object).sort()).toEqual(
      ["HOME", "LANG", "PATH", "PWD", "PYTHONIOENCODING", "TMPDIR"].sort(),
    );
    expect(JSON.stringify(output)).not.toContain(SECRET);
    expect(JSON.stringify(output.environments)).toContain("PATH=");
  });

  it("shows neither bwrap's init nor the program anything of the service's environment (no PWD, HOME or any variable of it), in all four languages and at Rust's compile time", async () => {
    const readEnvirons = {
      python: `
import os
def entries(path):
    try:
        with open(path, "rb") as handle:
            return [entry.decode() for entry in handle.read().split(b"\\0") if entry]
    except PermissionError:
        return []
def main(inputs):
    # The zygote's forks are not dumpable, so their own /proc/self/environ may be closed to them.
    own = ["%s=%s" % item for item in os.environ.items()]
    return {"init": entries("/proc/1/environ"), "self": entries("/proc/self/environ") + own}
`,
      javascript: `
const fs = require("node:fs");
const entries = (path) => fs.readFileSync(path, "latin1").split("\\0").filter(Boolean);
function main() {
  return { init: entries("/proc/1/environ"), self: entries("/proc/self/environ") };
}
`,
      go: `package main

import (
	"os"
	"strings"
)

func entries(path string) []string {
	out := []string{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, entry := range strings.Split(string(data), "\\x00") {
		if entry != "" {
			out = append(out, entry)
		}
	}
	return out
}

func Main(inputs map[string]any) (map[string]any, error) {
	return map[string]any{"init": entries("/proc/1/environ"), "self": append(entries("/proc/self/environ"), os.Environ()...)}, nil
}
`,
      // include_bytes! reads /proc/1/environ of the compile's sandbox, at compile time.
      rust: `const AT_COMPILE: &[u8] = include_bytes!("/proc/1/environ");

fn split(data: &[u8]) -> Vec<String> {
    data.split(|byte| *byte == 0).filter(|entry| !entry.is_empty()).map(|entry| String::from_utf8_lossy(entry).into_owned()).collect()
}

fn entries(path: &str) -> Vec<String> {
    std::fs::read(path).map(|data| split(&data)).unwrap_or_default()
}

fn main_fn(_inputs: serde_json::Value) -> Result<serde_json::Value, String> {
    let mut own = entries("/proc/self/environ");
    own.extend(std::env::vars().map(|(name, value)| format!("{}={}", name, value)));
    own.extend(split(AT_COMPILE));
    Ok(serde_json::json!({"init": entries("/proc/1/environ"), "self": own}))
}
`,
    };
    // What the sandbox sets itself (bwrapArgs and the languages' env), whatever the service has.
    const sandboxOwn = new Set(["LANG=C.UTF-8", "NODE_ENV=production", "PYTHONIOENCODING=utf-8"]);
    const serviceEntries = Object.entries(process.env).map(([name, value]) => `${name}=${value}`);
    for (const language of ["python", "javascript", "go", "rust"] as const) {
      const result = await sandbox.run({ language, code: readEnvirons[language], input: {} });
      expect(result.error, `${language}: ${result.stderr}`).toBeNull();
      const { init, self } = result.output as { init: string[]; self: string[] };
      expect(init, language).toEqual(["PATH=/usr/local/bin:/usr/bin:/bin"]);
      for (const entries of [init, self]) {
        expect(entries, language).not.toContain(`PWD=${process.cwd()}`);
        expect(entries, language).not.toContain(`HOME=${process.env.HOME}`);
        expect(
          entries.filter((entry) => serviceEntries.includes(entry) && !sandboxOwn.has(entry)),
          language,
        ).toEqual([]);
      }
    }
  });

  it("writes only to its private /tmp and /dev/shm, both sized and gone after the run", async () => {
    const result = await python(
      `
import errno, os
def attempt(path):
    try:
        with open(path, "w") as handle:
            handle.write("pwned")
        return "written"
    except OSError as error:
        return errno.errorcode[error.errno]
def main(inputs):
    out = {name: attempt(path) for name, path in (
        ("usr", "/usr/pwned"), ("root", "/pwned"), ("etc", "/etc/pwned"), ("dev", "/dev/pwned"),
        ("runner", "/sandbox/pwned"), ("host_drop", inputs["drop"] + "/pwned"),
        ("tmp", "/tmp/mine"), ("shm", "/dev/shm/mine"))}
    try:
        with open("/dev/shm/big", "wb") as handle:
            handle.write(b"x" * (16 << 20))
        out["shm_big"] = "written"
    except OSError as error:
        out["shm_big"] = errno.errorcode[error.errno]
    return out
`,
      { drop: join(hostDir, "drop") },
    );
    expect(result.error).toBeNull();
    expect(result.output).toMatchObject({ tmp: "written", shm: "written", shm_big: "ENOSPC" });
    for (const name of ["usr", "root", "etc", "dev", "runner", "host_drop"]) {
      expect(result.output?.[name], name).not.toBe("written");
    }
    expect(readdirSync(join(hostDir, "drop"))).toEqual([]);
    expect(existsSync("/usr/pwned")).toBe(false);

    const next = await python(
      "import os\ndef main(inputs):\n    return {'tmp': os.listdir('/tmp'), 'shm': os.listdir('/dev/shm')}\n",
    );
    expect(next.output).toEqual({ tmp: [], shm: [] });
  });

  it("cannot reach host files through symlinks or hard links", async () => {
    const result = await python(
      `
import os
def attempt(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return type(error).__name__
def main(inputs):
    os.symlink("/etc/shadow", "/tmp/shadow")
    os.symlink(inputs["secret_path"], "/tmp/secret")
    os.symlink("/proc/1/root/" + inputs["secret_path"], "/tmp/via-init")
    try:
        os.link(inputs["secret_path"], "/tmp/hard")
        hard = "linked"
    except OSError as error:
        hard = type(error).__name__
    return {"shadow": attempt("/tmp/shadow"), "secret": attempt("/tmp/secret"),
            "via_init": attempt("/tmp/via-init"), "hard": hard}
`,
      { secret_path: join(hostDir, "secret.txt") },
    );
    expect(result.error).toBeNull();
    expect(result.output).toEqual({
      shadow: "FileNotFoundError",
      secret: "FileNotFoundError",
      via_init: "FileNotFoundError",
      hard: "FileNotFoundError",
    });
  });
});
