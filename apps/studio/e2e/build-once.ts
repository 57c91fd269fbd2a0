import { fileURLToPath } from "node:url";
import { build } from "vite";

/**
 * The builder serves apps/studio/dist, so the browser tests need a fresh build of the studio first:
 * the production build users get. Vitest sets NODE_ENV=test, and Vite builds with an existing
 * NODE_ENV, which gave React's development build (several times slower on a large canvas).
 */
export default async function buildStudio() {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({ root, mode: "production", logLevel: "warn", configFile: `${root}/vite.config.ts` });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
