import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ToolchainProbe } from "./types.ts";

const run = promisify(execFile);

/**
 * Runs `binary args` and reads a version out of its output with `pattern`; a missing or broken
 * binary becomes `isAvailable: false` with the install hint.
 *
 * @example await probeVersion("/usr/bin/python3", ["--version"], /Python (\S+)/, "apt-get install python3")
 */
export async function probeVersion(
  binary: string,
  args: string[],
  pattern: RegExp,
  installHint: string,
): Promise<ToolchainProbe> {
  try {
    const { stdout, stderr } = await run(binary, args, {
      env: { PATH: "/usr/bin:/bin", HOME: "/tmp" },
      timeout: 20_000,
    });
    const match = pattern.exec(`${stdout}\n${stderr}`);
    return { isAvailable: true, version: match?.[1] ?? stdout.trim() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      return { isAvailable: false, reason: `${binary} is not installed; ${installHint}` };
    return { isAvailable: false, reason: `${binary} does not run: ${(error as Error).message}` };
  }
}
