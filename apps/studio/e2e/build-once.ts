import { fileURLToPath } from "node:url";
import { build } from "vite";

/** The builder serves apps/studio/dist, so the browser tests need a fresh build of the studio first. */
export default async function buildStudio() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  await build({ root, logLevel: "warn", configFile: `${root}/vite.config.ts` });
}
