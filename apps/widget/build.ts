// `npm run build -w apps/widget`: bundles embed.js and webapp.js with esbuild (minified, ES2020) into
// dist/, with the brotli and gzip copies the builder serves by Accept-Encoding. Run by Node's own type
// stripping, so keep this file to erasable TypeScript.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { precompressDirectory } from "../studio/precompress.ts";

export const widgetDir = fileURLToPath(new URL(".", import.meta.url));
export const widgetDistDir = join(widgetDir, "dist");

/** The browser scripts the builder serves, by file name in dist/. */
export const WIDGET_ENTRIES = ["embed", "webapp"] as const;

/**
 * Builds embed.js and webapp.js into `outdir` (dist/ unless told) with their compressed copies;
 * answers each file's sizes.
 *
 * @example await buildWidget(); // then GET /embed.js on the builder
 */
export async function buildWidget(
  outdir: string = widgetDistDir,
): Promise<{ file: string; bytes: number; br: number; gzip: number }[]> {
  const esbuild = await import("esbuild");
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: WIDGET_ENTRIES.map((entry) => join(widgetDir, "src", `${entry}.ts`)),
    outdir,
    bundle: true,
    minify: true,
    // A classic script: embed.js reads document.currentScript, which a module never sees.
    format: "iife",
    target: "es2020",
    platform: "browser",
    legalComments: "none",
    logLevel: "warning",
  });
  // Brotli's best quality: two small files take milliseconds, and every visitor of every host site
  // downloads them.
  return precompressDirectory(outdir);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const { file, bytes, br, gzip } of await buildWidget())
    console.log(`${file}: ${bytes} bytes, ${br} brotli, ${gzip} gzip`);
}
