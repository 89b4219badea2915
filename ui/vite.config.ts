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
    // Libraries in two chunks rather than one per component: a page's code arrives in a few
    // requests instead of queueing dozens behind the browser's six connections.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules/, tags: ['$initial'], priority: 2 },
            { name: 'patternfly', test: /node_modules[\\/]@patternfly[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target, changeOrigin: false },
      '/sso': { target, changeOrigin: false },
      '/assistant': { target, changeOrigin: false },
      '/websocket': { target, ws: true, changeOrigin: false },
    },
  },
});
