import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Reads a secret kept in a file, or creates the file (mode 0600) with `generate()` on first use,
 * so a generated key survives restarts without being printed anywhere.
 *
 * @example const key = readOrCreateSecretFile("./data/builder/secret_key", () => randomBytes(32).toString("base64url"));
 */
export function readOrCreateSecretFile(path: string, generate: () => string): string {
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dirname(path), { recursive: true });
  const secret = generate();
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return secret;
}
