#!/usr/bin/env node
// The CLI is compiled from src/ by `npm install` (the `prepare` script); say so rather than crash
// with a module-not-found trace when someone runs it from a fresh clone without installing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('redline: dist/ is missing. Run `npm install` (or `npm run build`) in the checkout first.');
  process.exit(1);
}
await import(entry.href);
