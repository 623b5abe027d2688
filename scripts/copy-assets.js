#!/usr/bin/env node
// Part of `npm run build`: the web UI's templates and static files, and the HTML check's
// caniemail data with its licence, go beside the compiled code.
import { cpSync, mkdirSync, rmSync } from 'node:fs';

for (const dir of ['views', 'static']) {
  rmSync(`dist/server/web/${dir}`, { recursive: true, force: true });
  cpSync(`src/server/web/${dir}`, `dist/server/web/${dir}`, { recursive: true });
}
mkdirSync('dist/checks', { recursive: true });
for (const file of ['caniemail.json', 'caniemail.LICENSE']) cpSync(`src/checks/${file}`, `dist/checks/${file}`);
