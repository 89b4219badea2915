import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// `npm run dev` serves the console here with the API of a running service (DROVER_URL, default
// http://127.0.0.1:8013) behind the same origin, so its session and CSRF cookies work unchanged.
const target = process.env.DROVER_URL ?? 'http://127.0.0.1:8013';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/sso': { target, changeOrigin: false },
      '/websocket': { target, ws: true, changeOrigin: false },
    },
  },
});
