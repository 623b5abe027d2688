#!/usr/bin/env node
// Part of `npm run build`: the web UI's templates and static files go beside the compiled code.
import { cpSync, rmSync } from 'node:fs';

for (const dir of ['views', 'static']) {
  rmSync(`dist/server/web/${dir}`, { recursive: true, force: true });
  cpSync(`src/server/web/${dir}`, `dist/server/web/${dir}`, { recursive: true });
}
