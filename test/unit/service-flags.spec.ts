// The V8 flags `mailwright serve` sets in its own process must be ones this Node's V8 knows: an
// unknown flag is only reported on stderr, and the service would silently lose its memory bound.
import { spawnSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { RUNTIME_SERVICE_FLAGS } from '../../src/server/node-flags.js';

for (const flag of RUNTIME_SERVICE_FLAGS) {
  test(`V8 knows ${flag} and takes it while running`, () => {
    const script = `const v8 = require('node:v8'); v8.setFlagsFromString(${JSON.stringify(flag)}); process.stdout.write('ok')`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok');
  });
}

test('an unknown flag is reported on stderr, so the check above can fail', () => {
  const run = spawnSync(process.execPath, ['-e', "require('node:v8').setFlagsFromString('--no-such-flag-here')"], { encoding: 'utf8' });
  expect(run.stderr).toContain('no-such-flag-here');
});
