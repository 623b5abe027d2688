#!/usr/bin/env node
// The `mailwright` command. `serve` first makes sure it runs with the service's Node flags
// (./cli/relaunch.ts), before anything else is loaded; every command is in ./cli/main.ts.
import { relaunchWithServiceFlags } from './cli/relaunch.js';

if (!relaunchWithServiceFlags()) {
  const { run } = await import('./cli/main.js');
  await run(process.argv.slice(2));
}
