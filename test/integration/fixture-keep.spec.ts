// Integration: the `keep` option. By default a failed test's inbox outlives it (live on the
// service until its own expiry) and its timed-out wait links to the mailbox's page in the web
// UI, in the error and in the report's steps; a passing test's inbox ends with it. 'always'
// keeps every inbox (the worker's too), 'never' none. An unknown value is refused.
import { expect, test } from '@playwright/test';
import { resolveMailOptions } from '../../src/playwright/options.js';
import { annotation, runInner, startService, type InnerRun } from './fixture/run-inner.js';

type Service = Awaited<ReturnType<typeof startService>>;

/** The status of `GET /api/emails/{id}`: 200 while the mailbox is live, 404 once it ended. */
async function liveStatus(service: Service, id: string | undefined): Promise<number> {
  expect(id, 'the inner test recorded its inbox id').toBeTruthy();
  return (await service.api('GET', `/api/emails/${id}`)).status;
}

function idOf(run: InnerRun, title: string, type = 'id'): string | undefined {
  return annotation(run.get(title), type);
}

async function runKeep(service: Service, keep?: string): Promise<InnerRun> {
  const run = await runInner({ service, files: ['keep.inner.ts'], workers: 1, ...(keep ? { env: { MW_KEEP: keep } } : {}) });
  expect(run.tests.map((t) => `${t.title}: ${t.status}`), run.stdout + run.stderr).toEqual([
    'a failing wait: failed',
    'a passing test: passed',
    'a test expected to fail, failing: failed',
    'a test using the beforeAll inbox: passed',
  ]);
  return run;
}

test('by default a failed test keeps its inbox, and the timed-out wait links to it in the web UI', async () => {
  test.setTimeout(120_000);
  await using service = await startService();
  const run = await runKeep(service);

  const failed = run.get('a failing wait');
  const id = annotation(failed, 'id')!;
  const address = annotation(failed, 'address')!;
  const page = `${service.httpUrl}/mailboxes/${id}`;
  const text = failed.errors.join('\n');
  expect(text).toContain(`no message arrived at ${address} matching subject ~ "Never" within 1 s`);
  expect(text).toContain(`\nSee it in the web UI: ${page}`);
  expect(failed.steps).toContain(`see ${address} in the web UI: ${page}`);
  expect(failed.stepPaths).toContain(`wait for message to ${address} matching subject ~ "Never" › see ${address} in the web UI: ${page}`);
  expect(annotation(failed, 'mailwright inbox kept')).toMatch(new RegExp(`^${address.replace(/\./g, '\\.')} is live until \\d\\d:\\d\\d:\\d\\d\\.\\d{3}: ${page.replace(/\./g, '\\.')}$`));
  expect(await liveStatus(service, id)).toBe(200);

  // A pass, and a failure the test expected, end their inboxes; so does the worker's own at its end.
  expect(await liveStatus(service, idOf(run, 'a passing test'))).toBe(404);
  expect(annotation(run.get('a passing test'), 'mailwright inbox kept')).toBeUndefined();
  expect(await liveStatus(service, idOf(run, 'a test expected to fail, failing'))).toBe(404);
  expect(await liveStatus(service, idOf(run, 'a test using the beforeAll inbox', 'shared id'))).toBe(404);
});

test("keep: 'always' keeps every inbox, the worker's too; keep: 'never' ends them all and links to none", async () => {
  test.setTimeout(180_000);
  await using service = await startService();
  const always = await runKeep(service, 'always');
  for (const title of ['a failing wait', 'a passing test', 'a test expected to fail, failing']) {
    expect(await liveStatus(service, idOf(always, title)), title).toBe(200);
  }
  expect(await liveStatus(service, idOf(always, 'a test using the beforeAll inbox', 'shared id'))).toBe(200);
  expect(always.get('a failing wait').errors.join('\n')).toContain(`See it in the web UI: ${service.httpUrl}/mailboxes/${idOf(always, 'a failing wait')}`);

  const never = await runKeep(service, 'never');
  for (const title of ['a failing wait', 'a passing test', 'a test expected to fail, failing']) {
    expect(await liveStatus(service, idOf(never, title)), title).toBe(404);
  }
  expect(await liveStatus(service, idOf(never, 'a test using the beforeAll inbox', 'shared id'))).toBe(404);
  const failed = never.get('a failing wait');
  expect(failed.errors.join('\n')).toContain('no message arrived at');
  expect(failed.errors.join('\n')).not.toContain('See it in the web UI');
  expect(failed.steps.some((step) => step.includes('in the web UI'))).toBe(false);
  expect(annotation(failed, 'mailwright inbox kept')).toBeUndefined();
});

test('an unknown keep value is refused like the other options', () => {
  const env = { MAILWRIGHT_URL: 'http://127.0.0.1:8025', MAILWRIGHT_API_KEY: 'mw_env' };
  expect(resolveMailOptions([], env).keep).toBe('on-failure');
  expect(resolveMailOptions([{ keep: 'always' }], env).keep).toBe('always');
  let error: unknown;
  try {
    resolveMailOptions([{ keep: 'sometimes' as never }], env);
  } catch (caught) {
    error = caught;
  }
  expect(error).toMatchObject({ code: 'MW_ERR_FIXTURE_OPTION', message: `mailwright option "keep" is "sometimes"; use one of 'on-failure', 'always', 'never': test.use({ mailwright: { keep: 'on-failure' } })` });
});
