import { probeVersion } from "./probe.ts";
import type { InterpretedLanguage } from "./types.ts";

/** Debian's interpreter: it lives under /usr, which is all the sandbox sees of the host. */
const PYTHON = "/usr/bin/python3";

/**
 * Python: `def main(inputs: dict) -> dict` (async allowed), run by runners/runner.py in a process
 * that runners/zygote.py forks for each request.
 *
 * @example python.command(limits) // ["/usr/bin/python3", "-I", "-B", "/sandbox/zygote.py"]
 */
export const python: InterpretedLanguage = {
  kind: "interpreted",
  language: "python",
  probe: () =>
    probeVersion(PYTHON, ["--version"], /Python (\S+)/, "install it with `apt-get install python3`"),
  // -I: no PYTHON* variables, no user site, no script directory on sys.path; -B: /usr is read-only anyway.
  command: () => [PYTHON, "-I", "-B", "/sandbox/zygote.py"],
  env: () => ({ PYTHONIOENCODING: "utf-8" }),
};
