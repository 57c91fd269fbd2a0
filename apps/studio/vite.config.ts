import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./precompress.ts";

// In `npm run dev` the API runs on the builder's port; the built app is served by the builder itself.
const apiTarget = `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  // Brotli and gzip copies of every text file, served by the builder by Accept-Encoding.
  plugins: [react(), precompress()],
  server: {
    port: 5173,
    proxy: {
      "/api": {
        target: apiTarget,
        changeOrigin: false,
        // The builder accepts sign-in only from its own origin (CSRF check); to it, the dev server's
        // requests come from there.
        configure: (proxy) => proxy.on("proxyReq", (request) => request.setHeader("origin", apiTarget)),
      },
    },
  },
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 600 },
});
