// `npm run bench -- <name>`: runs bench/<name>.ts, which prints its table next to a baseline from the same run.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const benchDir = fileURLToPath(new URL(".", import.meta.url));
const available = readdirSync(benchDir)
  .filter((file) => file.endsWith(".ts") && !["run.ts", "lib.ts"].includes(file))
  .map((file) => file.replace(/\.ts$/, ""));

const [name, ...rest] = process.argv.slice(2);
if (!name || !existsSync(`${benchDir}/${name}.ts`)) {
  console.error(`usage: npm run bench -- <name> [options]\navailable: ${available.join(", ")}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ["--import", "tsx", `${benchDir}/${name}.ts`, ...rest], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
