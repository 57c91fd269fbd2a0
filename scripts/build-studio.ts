// Runs before `npm start`: builds the studio when its build is missing or older than its sources,
// so a fresh clone serves the web app with no extra step and a warm start costs nothing.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const studio = fileURLToPath(new URL("../apps/studio", import.meta.url));
const builtIndex = join(studio, "dist", "index.html");

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

const sources = ["src", "index.html", "vite.config.ts", "package.json"].map((name) => join(studio, name));
const isStale =
  !existsSync(builtIndex) ||
  statSync(builtIndex).mtimeMs < Math.max(...sources.filter(existsSync).map(newestChange));

if (isStale) {
  console.log("Building the studio…");
  const result = spawnSync("npm", ["run", "build", "-w", "apps/studio", "--silent"], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
