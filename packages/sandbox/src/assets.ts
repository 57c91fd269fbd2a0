import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNNER_FILES = [
  "runner.py",
  "zygote.py",
  "runner.cjs",
  "isolate-runner.cjs",
  "protocol.cjs",
  "wrapper.go",
  "wrapper.rs",
] as const;

/**
 * Where toolchain caches and compiled binaries go when the caller names no directory.
 *
 * @example defaultCacheDir() // "/var/cache/app-sandbox" as root, else "/tmp/app-sandbox-1000"
 */
export function defaultCacheDir(): string {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? "/var/cache/app-sandbox" : join(tmpdir(), `app-sandbox-${uid}`);
}

/**
 * Copies the runners into the cache directory (content-addressed), since the sandbox uids may not reach the repository.
 *
 * @example const assets = installAssets(cacheDir); // { dir: `${cacheDir}/assets-<hash>`, hash }
 */
export function installAssets(cacheDir: string): { dir: string; hash: string } {
  const source = fileURLToPath(new URL("./runners/", import.meta.url));
  const contents = RUNNER_FILES.map((name) => [name, readFileSync(join(source, name))] as const);
  const hash = createHash("sha256");
  for (const [name, bytes] of contents) hash.update(name).update(bytes);
  const digest = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `assets-${digest}`);
  if (existsSync(dir)) return { dir, hash: digest };
  const staging = `${dir}.staging-${randomBytes(4).toString("hex")}`;
  mkdirSync(staging, { mode: 0o755 });
  for (const [name, bytes] of contents) writeFileSync(join(staging, name), bytes, { mode: 0o644 });
  try {
    renameSync(staging, dir);
  } catch {
    // Another process installed the same assets first.
    rmSync(staging, { recursive: true, force: true });
  }
  return { dir, hash: digest };
}
