// `npm run build`: both services bundled to JavaScript with esbuild (workspace packages and npm
// dependencies inlined, code loaded on first use split into chunks), the studio built with Vite, and
// the apps' widget and web app scripts bundled with esbuild (apps/widget/build.ts).
// `npm start` calls `buildIfStale` instead, which rebuilds only what a source stamp says changed.
// Run by Node's own type stripping (no loader), so keep this file to erasable TypeScript.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** The compiled entries `npm start` and the production commands run, by service. */
export const SERVICE_ENTRIES = {
  builder: { dir: "apps/builder", entries: ["server"] },
  payments: { dir: "apps/payments", entries: ["server", "worker"] },
} as const;

export type ServiceName = keyof typeof SERVICE_ENTRIES;

/** `apps/<service>/dist/<entry>.js`, absolute. */
export function compiledEntry(service: ServiceName, entry = "server"): string {
  return join(root, SERVICE_ENTRIES[service].dir, "dist", `${entry}.js`);
}

const STAMP_FILE = "build-stamp";

/** What a service bundle is made of: its app, every workspace package, and the lockfile. */
const SERVICE_SOURCES = [
  "apps/builder",
  "apps/payments",
  "packages",
  "package-lock.json",
  "scripts/build.ts",
];
const STUDIO_SOURCES = [
  "apps/studio/src",
  "apps/studio/index.html",
  "apps/studio/vite.config.ts",
  "apps/studio/package.json",
];
const WIDGET_SOURCES = ["apps/widget/src", "apps/widget/build.ts", "apps/widget/package.json"];
/** Never part of a bundle: outputs, dependencies, tests, migrations (read from disk at run time). */
const SKIPPED = new Set(["node_modules", "dist", "test", "drizzle", "e2e"]);

/**
 * A digest of every source file's path, size and mtime: cheap enough to compute on each start
 * (a few thousand `stat`s), and any edit, checkout or `npm install` changes it.
 *
 * @example sourceStamp(["apps/builder", "packages"]) // "3f9a…"
 */
export function sourceStamp(paths: readonly string[], base = root): string {
  const hash = createHash("sha256");
  const visit = (path: string) => {
    if (!existsSync(path)) return;
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const name of readdirSync(path).sort()) {
        if (SKIPPED.has(name) || name.endsWith(".test.ts")) continue;
        visit(join(path, name));
      }
      return;
    }
    hash.update(`${relative(base, path)}\0${stats.size}\0${stats.mtimeMs}\n`);
  };
  for (const path of paths) visit(join(base, path));
  return hash.digest("hex");
}

function readStamp(dir: string): string | undefined {
  const file = join(root, dir, "dist", STAMP_FILE);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

function isServiceBuildCurrent(stamp: string): boolean {
  return Object.entries(SERVICE_ENTRIES).every(
    ([name, service]) =>
      readStamp(service.dir) === stamp &&
      service.entries.every((entry) => existsSync(compiledEntry(name as ServiceName, entry))),
  );
}

/**
 * Bundles each service entry into `apps/<service>/dist/<entry>.js`. Files our code reads next to its
 * sources at run time (migrations, sandbox runners, the studio's build, package.json) are found
 * because every `import.meta.url` in our sources is rewritten to the URL of the source file it
 * was written in, expressed relative to the bundle so the checkout can move.
 */
export async function buildServices(): Promise<void> {
  const stamp = sourceStamp(SERVICE_SOURCES);
  // Side by side: esbuild's one process then keeps both cores busy through each build's serial parts.
  await usingEsbuild((esbuild) =>
    Promise.all(
      Object.entries(SERVICE_ENTRIES).map(async ([name, service]) => {
        const outdir = join(root, service.dir, "dist");
        // Chunk names change with their content: the last build's would pile up.
        rmSync(outdir, { recursive: true, force: true });
        mkdirSync(outdir, { recursive: true });
        await esbuild.build({
          entryPoints: service.entries.map((entry) => join(root, service.dir, "src", `${entry}.ts`)),
          outdir,
          // `<entry>.js` is the small loader below; the bundle is `<entry>.bundle.js`.
          entryNames: "[name].bundle",
          bundle: true,
          platform: "node",
          format: "esm",
          target: "node24",
          sourcemap: "linked",
          // The sources are in the checkout: a map of positions only is a fraction of the size.
          sourcesContent: false,
          logLevel: "warning",
          // What `import()` loads on first use (tracing, document parsers, providers) stays out of the
          // start: a chunk of its own, read only when called.
          splitting: true,
          // Beside the entries: `import.meta.url` of our sources is rewritten relative to `outdir`.
          chunkNames: "[name]-[hash]",
          external: RUNTIME_FILE_PACKAGES,
          // CommonJS dependencies inlined into an ES module still call `require` for Node's built-ins.
          banner: {
            js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
          },
          plugins: [sourceRelativeImportMeta(outdir)],
        });
        for (const entry of service.entries)
          writeFileSync(join(outdir, `${entry}.js`), compileCachedEntry(entry));
        writeFileSync(join(outdir, STAMP_FILE), `${stamp}\n`);
        console.log(`Built ${name} into ${relative(root, outdir)}/`);
      }),
    ),
  );
}

let esbuildUsers = 0;

/**
 * Runs builds on esbuild's one service process and stops that process when the last build using
 * it ends. It outlives the builds otherwise: in `npm start` it held ~700 MB for the supervisor's
 * whole life. Counted, because the services and the widget build side by side on the same process,
 * and stopping it under a build still running would fail that build.
 *
 * @example await usingEsbuild((esbuild) => esbuild.build({ entryPoints, outdir }));
 */
async function usingEsbuild<T>(work: (esbuild: typeof import("esbuild")) => Promise<T>): Promise<T> {
  const esbuild = await import("esbuild");
  esbuildUsers += 1;
  try {
    return await work(esbuild);
  } finally {
    esbuildUsers -= 1;
    if (esbuildUsers === 0) await esbuild.stop();
  }
}

/**
 * What `node dist/<entry>.js` runs: V8's compiled code of the bundle is kept on disk (Node's compile
 * cache, in `dist/.compile-cache` or NODE_COMPILE_CACHE), so a restart skips parsing and compiling
 * megabytes of JavaScript — most of a warm start's CPU once the files are bundled. Written out after
 * the service has started, so it exists even if the process is later killed. A read-only checkout
 * just runs without it.
 */
function compileCachedEntry(entry: string): string {
  return `// Generated by scripts/build.ts: runs ./${entry}.bundle.js with Node's compile cache on.
import module from "node:module";
import { fileURLToPath } from "node:url";
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL("./.compile-cache", import.meta.url)));
await import("./${entry}.bundle.js");
module.flushCompileCache?.();
`;
}

/**
 * Dependencies that find files next to their own code at run time (PGlite's WebAssembly, file-system
 * image and extensions) and the build tool itself: resolved from node_modules at run time. Everything
 * else is inlined: resolving and reading ~2,000 module files took most of a warm start.
 */
const RUNTIME_FILE_PACKAGES = ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "esbuild"];

function sourceRelativeImportMeta(outdir: string): Plugin {
  return {
    name: "source-relative-import-meta",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes("/node_modules/")) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const fromBundle = relative(outdir, args.path).split("\\").join("/");
        const expression = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        return { contents: source.replaceAll("import.meta.url", expression), loader: "ts" };
      });
    },
  };
}

/**
 * Builds the studio with Vite into `apps/studio/dist`. A quick build (what `npm start` does when the
 * studio changed) compresses its copies at a low brotli quality; `npm start` recompresses them at the
 * best once both services are up.
 */
export async function buildStudio({ isQuick = false }: { isQuick?: boolean } = {}): Promise<void> {
  console.log("Building the studio…");
  const { QUICK_BROTLI_QUALITY } = await import("../apps/studio/precompress.ts");
  const child = spawn("npm", ["run", "build", "-w", "apps/studio", "--silent"], {
    cwd: root,
    stdio: "inherit",
    env: isQuick ? { ...process.env, STUDIO_BROTLI_QUALITY: String(QUICK_BROTLI_QUALITY) } : process.env,
  });
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (status !== 0) throw new Error(`the studio's build failed (exit code ${status})`);
  writeFileSync(join(root, "apps/studio/dist", STAMP_FILE), `${sourceStamp(STUDIO_SOURCES)}\n`);
}

/**
 * Bundles the widget (embed.js) and the web app (webapp.js) into `apps/widget/dist`, with their
 * compressed copies. A few hundred milliseconds: small enough to always compress at the best quality.
 *
 * @example await buildWidgetScripts();
 */
export async function buildWidgetScripts(): Promise<void> {
  const { buildWidget } = await import("../apps/widget/build.ts");
  await usingEsbuild(() => buildWidget());
  writeFileSync(join(root, "apps/widget/dist", STAMP_FILE), `${sourceStamp(WIDGET_SOURCES)}\n`);
  console.log("Built the widget into apps/widget/dist/");
}

/**
 * Rebuilds the services, the studio and the widget, side by side, if their sources changed since the
 * last build (the studio quickly: see `buildStudio`); a warm start only computes the stamps.
 *
 * @example await buildIfStale(); // then run apps/builder/dist/server.js
 */
export async function buildIfStale(): Promise<void> {
  const studioIndex = join(root, "apps/studio/dist/index.html");
  await Promise.all([
    isServiceBuildCurrent(sourceStamp(SERVICE_SOURCES)) ? undefined : buildServices(),
    existsSync(studioIndex) && readStamp("apps/studio") === sourceStamp(STUDIO_SOURCES)
      ? undefined
      : buildStudio({ isQuick: true }),
    buildWidgetIfStale(),
  ]);
}

/**
 * Rebuilds the widget's scripts if their sources changed; `npm run dev` calls it too, since the
 * builder serves them from apps/widget/dist even when it runs from source.
 *
 * @example await buildWidgetIfStale();
 */
export async function buildWidgetIfStale(): Promise<void> {
  const isCurrent =
    existsSync(join(root, "apps/widget/dist/embed.js")) &&
    readStamp("apps/widget") === sourceStamp(WIDGET_SOURCES);
  if (!isCurrent) await buildWidgetScripts();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (process.argv.includes("--if-stale")) {
    await buildIfStale();
  } else {
    await Promise.all([buildServices(), buildStudio(), buildWidgetScripts()]);
  }
}
