// Integration: the README's TypeScript examples that import from 'mailwright' compile under
// `tsc --strict` against the built package, the way a user's project sees it, and so do those
// of docs/fixture.md, where the README's longer examples went. Blocks that elide code with "…"
// are sketches and are skipped.
import { test, expect } from '@playwright/test';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './helpers/service.js';

const run = promisify(execFile);

test('README examples compile under tsc --strict', async () => {
  test.setTimeout(120_000);
  const readme = ['README.md', 'docs/fixture.md'].map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((code) => /from 'mailwright(\/\w+)?'/.test(code) && !code.includes('…'));
  // The Quick start config and spec, the typed config, the mail opened in a page at least.
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  // Inside the package, so 'mailwright' resolves to this package's exports (dist/), as it does from node_modules.
  const dir = mkdtempSync(join(ROOT, '.readme-check-'));
  try {
    const files = blocks.map((code, i) => {
      const file = join(dir, `example-${i}.ts`);
      // Each block is a module of its own; top-level await needs one.
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2023', lib: ['ES2023', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
      files: files.map((f) => f.slice(dir.length + 1)),
    }));
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(() => '', (error: { stdout?: string }) => error.stdout ?? String(error));
    expect(result, `README examples do not compile:\n${result}\n${blocks.map((b, i) => `--- example-${i}.ts\n${b}`).join('\n')}`).toBe('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
