// Integration: what a user sees when a wait fails — the timeout error's text (address,
// match, timeout, delivery mode, what arrived, hint), the wait as a test step, and the mail
// attached to the report (HTML, text, .eml) on failure, or always with attach: 'always'.
import { test, expect } from '@playwright/test';
import { annotation, runInner, startService, type InnerTest } from './fixture/run-inner.js';

function attachmentSummary(t: InnerTest) {
  // The PNG of an HTML mail depends on a browser being found; fixture-attach.spec.ts covers it.
  return t.attachments.filter((a) => a.contentType !== 'text/markdown' && a.contentType !== 'image/png').map((a) => ({ name: a.name, contentType: a.contentType }));
}

function decoded(t: InnerTest, suffix: string): string {
  const attachment = t.attachments.find((a) => a.name.endsWith(suffix));
  return Buffer.from(attachment?.body ?? '', 'base64').toString('utf8');
}

test('failed waits explain themselves and attach the mail that did arrive', async () => {
  test.setTimeout(180_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['failures.inner.ts', 'attach-always.inner.ts'], workers: 2 });
  expect(run.exitCode).toBe(1);
  expect(run.tests).toHaveLength(7);

  const timeout = run.get('wait times out listing what arrived');
  const address = annotation(timeout, 'address')!;
  expect(timeout.status).toBe('failed');
  const text = timeout.errors.join('\n');
  expect(text).toContain(`MailwrightTimeoutError: no message arrived at ${address} matching subject ~ "Never" within 1.5 s (delivery: webhook).`);
  expect(text).toMatch(/\(delivery: webhook\)\. Waited at failures\.inner\.ts:\d+\./);
  expect(text).toContain('1 message arrived since the inbox was created, none matching:');
  expect(text).toMatch(/1\. "Something else" from Billing <billing@app\.test> at \d\d:\d\d:\d\d\.\d{3}/);
  expect(text).toContain('Hint: compare the match with the subjects and senders above');
  expect(timeout.steps).toContain(`wait for message to ${address} matching subject ~ "Never"`);
  expect(attachmentSummary(timeout)).toEqual([
    { name: `${address} #1 Something else.html`, contentType: 'text/html' },
    { name: `${address} #1 Something else.txt`, contentType: 'text/plain' },
    { name: `${address} #1 Something else.eml`, contentType: 'message/rfc822' },
  ]);
  expect(decoded(timeout, '.html')).toContain('<p>html body</p>');
  expect(decoded(timeout, '.txt')).toContain('plain body');
  expect(decoded(timeout, '.eml')).toMatch(/^Subject: Something else\r?$/m);

  const code = run.get('code wait times out when the matching mail has no code');
  const codeText = code.errors.join('\n');
  expect(codeText).toContain(`no code arrived at ${annotation(code, 'address')} matching subject ~ "code" within 1 s`);
  expect(codeText).toContain('1 matched but no code was found in it:');
  expect(codeText).toContain('"Your code" from Demo App <noreply@app.test>');
  expect(codeText).toContain('[matched, no code]');
  expect(codeText).toContain('     why: no code found');
  expect(codeText).toContain('Hint: read the reasons above, or open the message in the report');

  const link = run.get('link wait times out naming the candidates it turned down');
  const linkText = link.errors.join('\n');
  expect(linkText).toContain('[matched, no verification link]');
  expect(linkText).toContain('     why: ambiguous: http://staging.app.test/confirm?token=abc (score 10) is too close to http://localhost:3000/confirm?token=abc (score 10)');
  expect(linkText).toContain('     - http://localhost:3000/confirm?token=abc — candidate, score 10:');
  expect(linkText).toContain('     - http://staging.app.test/confirm?token=abc — candidate, score 10:');
  expect(code.steps).toContain(`wait for code to ${annotation(code, 'address')} matching subject ~ "code"`);

  const nothing = run.get('wait times out when nothing arrived');
  const nothingText = nothing.errors.join('\n');
  expect(nothingText).toContain(`no verification link arrived at ${annotation(nothing, 'address')} within 1 s`);
  expect(nothingText).toContain(`Nothing arrived at ${annotation(nothing, 'address')} since the inbox was created.`);
  expect(nothing.steps).toContain(`wait for verification link to ${annotation(nothing, 'address')}`);
  expect(attachmentSummary(nothing)).toEqual([]);

  const matcher = run.get('toReceive fails with the timeout text');
  const matcherText = matcher.errors.join('\n');
  expect(matcherText).toContain('expect(inbox).toReceive(');
  expect(matcherText).toContain(`no message arrived at ${annotation(matcher, 'address')} matching subject ~ "Goodbye" within 1 s`);
  expect(matcherText).toContain('"Hello" from Demo App <noreply@app.test>');
  expect(attachmentSummary(matcher).map((a) => a.contentType)).toEqual(['message/rfc822']); // a bodiless mail: only its source

  const passing = run.get('a passing test attaches nothing by default');
  expect(passing.status).toBe('passed');
  expect(attachmentSummary(passing)).toEqual([]);

  const always = run.get('a passing test attaches its mail');
  expect(always.status).toBe('passed');
  expect(attachmentSummary(always).map((a) => a.contentType)).toEqual(['text/html', 'text/plain', 'message/rfc822']);
  expect(decoded(always, '.txt')).toContain('kept text');
});
