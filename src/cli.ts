#!/usr/bin/env node
// The `mailwright` command; every command is in ./cli/main.ts. `mailwright serve` runs in this
// process, with the Node flags it was started with (see SERVICE_NODE_FLAGS).
import { run } from './cli/main.js';

await run(process.argv.slice(2));
