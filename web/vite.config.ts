// The page is static: `vite build` writes web/dist (index.html, one script,
// one stylesheet, the WebAssembly module), which any static host serves,
// `priorart serve --web web/dist` among them.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    // The WebAssembly module stays a file of its own (never inlined as base64).
    assetsInlineLimit: 0,
  },
});
