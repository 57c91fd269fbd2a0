import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// In `npm run dev` the API runs on the builder's port; the built app is served by the builder itself.
const apiTarget = `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  plugins: [react()],
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
