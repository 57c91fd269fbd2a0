import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** Text formats worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".xml", ".wasm"]);
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 512;

/**
 * Writes `file.br` (brotli, quality 11) and `file.gz` (gzip -9) beside every compressible file of
 * `dir`, once at build time, so the server sends bytes that were squeezed hard without spending
 * CPU per request. A copy that comes out no smaller is not written.
 *
 * @example precompressDirectory("apps/studio/dist") // → [{ file: "assets/index-x.js", bytes: 280000, br: 76000, gzip: 88000 }]
 */
export function precompressDirectory(
  dir: string,
): { file: string; bytes: number; br: number; gzip: number }[] {
  const written: { file: string; bytes: number; br: number; gzip: number }[] = [];
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
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      });
      const gzip = gzipSync(source, { level: 9 });
      if (br.length < source.length) writeFileSync(`${full}.br`, br);
      if (gzip.length < source.length) writeFileSync(`${full}.gz`, gzip);
      written.push({ file: path, bytes: source.length, br: br.length, gzip: gzip.length });
    }
  };
  walk("");
  return written;
}

/** Vite plugin: precompresses the build output once it is written. */
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
      precompressDirectory(outDir);
    },
  };
}
