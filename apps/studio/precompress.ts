import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** Text formats worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".xml", ".wasm"]);
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 512;
/** Where the brotli quality of the copies in a directory is recorded. */
const QUALITY_FILE = ".brotli-quality";

/**
 * The quality `npm start` compresses with when it builds the studio itself: about 30 ms of CPU for the
 * whole studio where quality 11 takes 1.3 s, for copies about 10% larger (still smaller than gzip -9).
 * Once both services are up, `npm start` recompresses at BROTLI_MAX_QUALITY in the background.
 */
export const QUICK_BROTLI_QUALITY = 5;

/**
 * Writes `file.br` (brotli, quality 11 unless told) and `file.gz` (gzip -9) beside every compressible
 * file of `dir`, so the server sends bytes that were squeezed hard without spending CPU per request.
 * A copy that comes out no smaller is not written. Each copy replaces the last by a rename, so a
 * server reading the directory meanwhile gets one whole copy or the other.
 *
 * @example precompressDirectory("apps/studio/dist") // → [{ file: "assets/index-x.js", bytes: 280000, br: 76000, gzip: 88000 }]
 */
export function precompressDirectory(
  dir: string,
  brotliQuality: number = constants.BROTLI_MAX_QUALITY,
): { file: string; bytes: number; br: number; gzip: number }[] {
  const written: { file: string; bytes: number; br: number; gzip: number }[] = [];
  const replace = (path: string, bytes: Buffer) => {
    writeFileSync(`${path}.tmp`, bytes);
    renameSync(`${path}.tmp`, path);
  };
  const walk = (relative: string) => {
    for (const name of readdirSync(join(dir, relative))) {
      const path = join(relative, name);
      const full = join(dir, path);
      if (statSync(full).isDirectory()) {
        walk(path);
        continue;
      }
      if (!COMPRESSIBLE.has(extname(name))) continue;
      const source = readFileSync(full);
      if (source.length < MIN_BYTES) continue;
      const br = brotliCompressSync(source, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
          [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      });
      const gzip = gzipSync(source, { level: 9 });
      if (br.length < source.length) replace(`${full}.br`, br);
      if (gzip.length < source.length) replace(`${full}.gz`, gzip);
      written.push({ file: path, bytes: source.length, br: br.length, gzip: gzip.length });
    }
  };
  walk("");
  writeFileSync(join(dir, QUALITY_FILE), `${brotliQuality}\n`);
  return written;
}

/**
 * Whether the copies in `dir` were written at brotli's best quality (a quick build's were not).
 *
 * @example if (!isBestCompressed("apps/studio/dist")) precompressDirectory("apps/studio/dist");
 */
export function isBestCompressed(dir: string): boolean {
  const file = join(dir, QUALITY_FILE);
  return existsSync(file) && Number(readFileSync(file, "utf8")) === constants.BROTLI_MAX_QUALITY;
}

/**
 * Vite plugin: precompresses the build output once it is written, at STUDIO_BROTLI_QUALITY when
 * set (how `npm start` asks for a quick build), else at brotli's best.
 */
export function precompress(): Plugin {
  let outDir = "dist";
  return {
    name: "studio-precompress",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir.startsWith("/")
        ? config.build.outDir
        : join(config.root, config.build.outDir);
    },
    closeBundle() {
      const quality = Number(process.env.STUDIO_BROTLI_QUALITY);
      precompressDirectory(outDir, Number.isInteger(quality) ? quality : constants.BROTLI_MAX_QUALITY);
    },
  };
}

// `node apps/studio/precompress.ts <dir>`: what `npm start` runs in the background after a quick build.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  precompressDirectory(resolve(process.argv[2] ?? "dist"));
}
