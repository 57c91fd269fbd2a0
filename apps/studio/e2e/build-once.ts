import { fileURLToPath } from "node:url";
import { build } from "vite";
import { buildWidget } from "../../widget/build.ts";

/**
 * The builder serves apps/studio/dist and the apps' scripts from apps/widget/dist, so the browser
 * tests need a fresh build of both first: the production build users get. Vitest sets NODE_ENV=test,
 * and Vite builds with an existing NODE_ENV, which gave React's development build (several times
 * slower on a large canvas).
 */
export default async function buildStudio() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await buildWidget();
    await build({ root, mode: "production", logLevel: "warn", configFile: `${root}/vite.config.ts` });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
