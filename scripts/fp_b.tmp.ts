import { readdirSync, readFileSync } from "node:fs";
import { buildServices } from "./build.ts";

const t = performance.now();
await buildServices();
for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = st.slice(st.lastIndexOf(")") + 2).split(" ");
    if (Number(f[1]) === process.pid) console.error("esbuild cpu s", (Number(f[11]) + Number(f[12])) / 100);
  } catch {}
}
console.error("wall", Math.round(performance.now() - t));
