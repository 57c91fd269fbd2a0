import { createReadStream, createWriteStream } from "node:fs";
import { access, constants, mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { newId } from "@app/core";
import { assertStorageKey, type ByteRange, type Storage, StorageNotFoundError } from "./storage.ts";

/**
 * Files on the local disk under `root` (`<DATA_DIR>/builder/files` by default). A write goes to
 * a temporary name first and is renamed into place, so a reader never sees half a file and a
 * failed write leaves nothing behind.
 *
 * @example const storage = localDiskStorage("./data/builder/files"); await storage.put("kb_1/doc_1", stream);
 */
export function localDiskStorage(root: string): Storage {
  const base = resolve(root);
  const pathOf = (key: string) => {
    assertStorageKey(key);
    const path = join(base, ...key.split("/"));
    if (!path.startsWith(base + sep)) throw new Error(`storage key escapes the root: ${key}`);
    return path;
  };

  return {
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${newId("part")}.tmp`;
      let sizeBytes = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          sizeBytes += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(body, count, createWriteStream(temporary, { flags: "wx" }));
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return { sizeBytes };
    },
    async get(key, range?: ByteRange) {
      const path = pathOf(key);
      try {
        await stat(path);
      } catch {
        throw new StorageNotFoundError(`no stored object ${key}`);
      }
      return createReadStream(path, range ? { start: range.start, end: range.end } : {});
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async check() {
      await mkdir(base, { recursive: true });
      await access(base, constants.W_OK);
    },
  };
}
