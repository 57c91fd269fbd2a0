import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { isBestCompressed, precompressDirectory, QUICK_BROTLI_QUALITY } from "../precompress.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("precompressDirectory", () => {
  it("writes brotli and gzip copies of text files that decompress to the original", () => {
    dir = mkdtempSync(join(tmpdir(), "precompress-"));
    mkdirSync(join(dir, "assets"));
    const script = `export const words = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `word-${i % 37}`))};\n`;
    writeFileSync(join(dir, "assets", "index-abc123.js"), script);
    writeFileSync(join(dir, "index.html"), `<!doctype html>${"<div>studio</div>".repeat(100)}`);

    const written = precompressDirectory(dir);

    expect(written.map((entry) => entry.file).sort()).toEqual([
      join("assets", "index-abc123.js"),
      "index.html",
    ]);
    const file = join(dir, "assets", "index-abc123.js");
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString()).toBe(script);
    expect(gunzipSync(readFileSync(`${file}.gz`)).toString()).toBe(script);
    expect(readFileSync(`${file}.br`).length).toBeLessThan(script.length / 4);
  });

  it("leaves images and files too small to gain alone", () => {
    dir = mkdtempSync(join(tmpdir(), "precompress-"));
    writeFileSync(join(dir, "logo.png"), Buffer.alloc(4096, 1));
    writeFileSync(join(dir, "tiny.js"), "export {};\n");

    expect(precompressDirectory(dir)).toEqual([]);
    expect(existsSync(join(dir, "logo.png.br"))).toBe(false);
    expect(existsSync(join(dir, "tiny.js.gz"))).toBe(false);
  });

  it("a quick pass is not the best compression; recompressing at the default replaces its copies with smaller ones", () => {
    dir = mkdtempSync(join(tmpdir(), "precompress-"));
    const script = `export const words = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `word-${(i * 7919) % 613}`))};\n`;
    const file = join(dir, "index-abc123.js");
    writeFileSync(file, script);

    precompressDirectory(dir, QUICK_BROTLI_QUALITY);
    const quick = readFileSync(`${file}.br`);
    expect(isBestCompressed(dir)).toBe(false);

    precompressDirectory(dir);
    const best = readFileSync(`${file}.br`);
    expect(isBestCompressed(dir)).toBe(true);
    expect(best.length).toBeLessThan(quick.length);
    expect(brotliDecompressSync(best).toString()).toBe(script);
  });
});
