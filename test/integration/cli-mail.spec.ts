// Integration: the CLI for terminal users, as a process against a running service: create a
// mailbox, list its mail and show a message (its text, its links, the link and code the fixture
// would find), with --url/--api-key or MAILWRIGHT_URL/MAILWRIGHT_API_KEY; one coded line naming
// the way out when the service is not there or refuses the key; "did you mean" for a misspelt
// command or flag; and a plain message for `--calls -5`.
import { expect, test } from '@playwright/test';
import { refusingPort } from '../helpers/ports.js';
import { runCli, runCliWith } from './helpers/cli-process.js';
import { ADMIN_KEY, startTestService, type TestService } from './helpers/service.js';

/** Runs the built CLI with these MAILWRIGHT_* variables (and no others from this process). */
const mailwright = (args: string[], env: Record<string, string> = {}) => runCliWith(args, env);

let service: TestService;
test.beforeAll(async () => {
  service = await startTestService();
});
test.afterAll(() => service.close());

test('create a mailbox, send it mail, list it and show a message with its links, link and code', async () => {
  test.setTimeout(60_000);
  const flags = ['--url', service.httpUrl, '--api-key', ADMIN_KEY];
  const created = await mailwright(['mailboxes', 'create', '--name', 'terminal-alice', '--expiry', '30m', ...flags]);
  expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
  const id = /^id {7}(mbx_\w+)$/m.exec(created.stdout)?.[1];
  expect(id, created.stdout).toBeTruthy();
  expect(created.stdout).toMatch(/^address {2}terminal-alice@mailwright\.test$/m);
  expect(created.stdout).toMatch(/^expires {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \(in (?:29m|30m)\)$/m);
  expect(created.stdout).toContain(`web UI   ${service.httpUrl}/mailboxes/${id}\n`);
  expect((await service.api('GET', `/api/emails/${id}`)).status).toBe(200);

  await service.send({
    from: 'Demo App <noreply@app.test>',
    to: 'terminal-alice@mailwright.test',
    subject: 'Verify your email',
    text: 'Your code is 482913.\nConfirm your address: https://app.example/verify?token=Zk3qP9wX\nUnsubscribe: https://app.example/unsubscribe',
    html: '<p>Your code is <b>482913</b>.</p><p><a href="https://app.example/verify?token=Zk3qP9wX">Confirm your address</a></p><p><a href="https://app.example/unsubscribe">Unsubscribe</a></p>',
  });
  await service.send({ from: 'other@app.test', to: 'terminal-alice@mailwright.test', subject: 'A second one', text: 'nothing to see' });

  // The variables instead of the flags.
  const env = { MAILWRIGHT_URL: service.httpUrl, MAILWRIGHT_API_KEY: ADMIN_KEY };
  const list = await mailwright(['messages', 'list'], env);
  expect(list, list.stderr).toMatchObject({ code: 0, stderr: '' });
  const [heading, newest, older] = list.stdout.trimEnd().split('\n');
  expect(heading).toMatch(/^TIME {2,}MAILBOX {2,}FROM {2,}SUBJECT {2,}ID$/);
  expect(newest).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}terminal-alice@mailwright\.test {2}other@app\.test {2,}A second one {2,}msg_\w+$/);
  expect(older).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}terminal-alice@mailwright\.test {2}noreply@app\.test {2}Verify your email {2}msg_\w+$/);
  const messageId = /(msg_\w+)$/.exec(older!)![1]!;

  const json = JSON.parse((await mailwright(['messages', 'list', '--mailbox', 'terminal-alice@mailwright.test', '--json', ...flags])).stdout);
  expect(json.map((m: { subject: string }) => m.subject)).toEqual(['A second one', 'Verify your email']);
  expect(json[1]).toMatchObject({ id: messageId, mailboxId: id, mailbox: 'terminal-alice@mailwright.test', from: { address: 'noreply@app.test' } });
  expect((await mailwright(['messages', 'list', '--limit', '1', ...flags])).stdout.trimEnd().split('\n')).toHaveLength(2);

  const show = await mailwright(['messages', 'show', messageId], env);
  expect(show, show.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(show.stdout).toContain('Subject  Verify your email\n');
  expect(show.stdout).toContain('From     Demo App <noreply@app.test>\n');
  expect(show.stdout).toContain(`Mailbox  terminal-alice@mailwright.test (${id})\n`);
  expect(show.stdout).toContain(`Web UI   ${service.httpUrl}/mailboxes/${id}/messages/${messageId}\n`);
  expect(show.stdout).toContain('Your code is 482913.\nConfirm your address: https://app.example/verify?token=Zk3qP9wX\n');
  expect(show.stdout).toMatch(/^Links \(2\):\n {2}1\. https:\/\/app\.example\/verify\?token=Zk3qP9wX {2}\[verification\]\n {2}2\. https:\/\/app\.example\/unsubscribe {2}\[unsubscribe\]$/m);
  expect(show.stdout).toContain('\nVerification link: https://app.example/verify?token=Zk3qP9wX\nCode: 482913\n');

  // With its mailbox given, and as JSON for scripts.
  const shown = JSON.parse((await mailwright(['messages', 'show', messageId, '--mailbox', id!, '--json', ...flags])).stdout);
  expect(shown).toMatchObject({ id: messageId, subject: 'Verify your email', verificationLink: 'https://app.example/verify?token=Zk3qP9wX', code: '482913' });
  expect(shown.links.map((l: { url: string }) => l.url)).toEqual(['https://app.example/verify?token=Zk3qP9wX', 'https://app.example/unsubscribe']);

  const plain = await mailwright(['messages', 'show', /(msg_\w+)$/.exec(newest!)![1]!, ...flags]);
  expect(plain.stdout).toContain('\nLinks: none\n');
  expect(plain.stdout).toMatch(/\nVerification link: none \(.+\)\nCode: none \(.+\)\n$/);
});

test('a service that is not there, a wrong key or none, an unknown message: one line naming the way out', async () => {
  test.setTimeout(60_000);
  const refusing = await refusingPort();
  const port = refusing.port;
  const [down, wrongKey, noKey, badUrl, missing, badExpiry] = await Promise.all([
    mailwright(['messages', 'list', '--url', `http://127.0.0.1:${port}`, '--api-key', ADMIN_KEY]),
    mailwright(['messages', 'list'], { MAILWRIGHT_URL: service.httpUrl, MAILWRIGHT_API_KEY: 'mw_not_a_key_of_this_service' }),
    mailwright(['mailboxes', 'create', '--url', service.httpUrl]),
    mailwright(['messages', 'list', '--url', 'ftp://example.test', '--api-key', ADMIN_KEY]),
    mailwright(['messages', 'show', 'msg_nope', '--url', service.httpUrl, '--api-key', ADMIN_KEY]),
    mailwright(['mailboxes', 'create', '--expiry', '10s', '--url', service.httpUrl, '--api-key', ADMIN_KEY]),
  ]);
  await refusing.close();
  expect(down).toMatchObject({ code: 1, stdout: '' });
  expect(down.stderr).toMatch(new RegExp(`^mailwright: MW_ERR_CONNECTION: no mailwright service answers at http://127\\.0\\.0\\.1:${port} \\(given by --url\\): .*ECONNREFUSED.*\\. Start one with \`npx mailwright serve\`, or pass --url \\(or set MAILWRIGHT_URL\\) with the address it printed\\n$`));
  expect(wrongKey).toMatchObject({ code: 1, stdout: '' });
  expect(wrongKey.stderr).toBe(`mailwright: invalid_api_key: the service at ${service.httpUrl} refused the API key mw_not_a… (from MAILWRIGHT_API_KEY): it is unknown there, or revoked. Pass a live key with --api-key or MAILWRIGHT_API_KEY; \`mailwright keys create --email you@example.com --data FILE\` makes one in the service's store\n`);
  expect(noKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/^mailwright: an API key is required: pass --api-key mw_… or set MAILWRIGHT_API_KEY/) });
  expect(badUrl).toMatchObject({ code: 2, stderr: 'mailwright: --url is "ftp://example.test", which is not an http:// or https:// URL; write e.g. http://127.0.0.1:8025\n' });
  expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^mailwright: message_not_found: no message msg_nope in the live mailboxes of this key's account; list them with `mailwright messages list`/) });
  expect(badExpiry).toMatchObject({ code: 2, stderr: 'mailwright: --expiry must be at least 1m, got 10s\n' });
  for (const result of [down, wrongKey, noKey, badUrl, missing, badExpiry]) expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
});

test('a misspelt command or flag gets the nearest one suggested (exit 2); --calls -5 says what it must be', async () => {
  test.setTimeout(60_000);
  const cases: Array<[string[], string]> = [
    [['mailboxs', 'list'], 'mailwright: unknown command "mailwright mailboxs"; did you mean `mailwright mailboxes list`? run `mailwright --help`\n'],
    [['mesages'], 'mailwright: unknown command "mailwright mesages"; did you mean `mailwright messages`? run `mailwright --help`\n'],
    [['messages', 'lst'], 'mailwright: unknown command "mailwright messages lst"; did you mean `mailwright messages list`? run `mailwright messages --help`\n'],
    [['keys', 'creat'], 'mailwright: unknown command "mailwright keys creat"; did you mean `mailwright keys create`? run `mailwright keys --help`\n'],
    [['keys', 'list', '--emial', 'qa@example.test'], 'mailwright: unknown option --emial for `mailwright keys list`; did you mean --email? run `mailwright keys list --help`\n'],
    [['messages', 'list', '--mailbx', 'x'], 'mailwright: unknown option --mailbx for `mailwright messages list`; did you mean --mailbox? run `mailwright messages list --help`\n'],
    [['--verison'], 'mailwright: unknown option --verison; did you mean --version? run `mailwright --help`\n'],
    // Nothing near: no guess.
    [['frobnicate'], 'mailwright: unknown command "mailwright frobnicate"; run `mailwright --help`\n'],
    [['keys', 'frobnicate'], 'mailwright: unknown command "mailwright keys frobnicate"; the keys commands are keys create, keys list, keys revoke; run `mailwright keys --help`\n'],
    // A value that starts with a dash, which Node's parser calls "ambiguous".
    [['quota', 'code', '--calls', '-5', '--data', ':memory:'], 'mailwright: --calls must be a positive whole number, got -5\n'],
    [['quota', 'grant', '--email', 'a@example.test', '--calls', '-5', '--data', ':memory:'], 'mailwright: --calls must be a positive whole number, got -5\n'],
    [['quota', 'code', '--calls=-5', '--data', ':memory:'], 'mailwright: --calls must be a positive whole number, got -5\n'],
    [['quota', 'code', '--calls', '0', '--data', ':memory:'], 'mailwright: --calls must be a positive whole number, got 0\n'],
    [['serve', '--http-port', '-1'], 'mailwright: --http-port must be a whole number (0 or more), got -1\n'],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(...args)));
  results.forEach((result, i) => expect(result, cases[i]![0].join(' ')).toEqual({ code: 2, stdout: '', stderr: cases[i]![1] }));
});

test('--help names the service commands and their --url and --api-key', async () => {
  const main = await runCli('--help');
  expect(main.code).toBe(0);
  for (const command of ['mailboxes create', 'messages list', 'messages show']) expect(main.stdout).toContain(`  ${command} `);
  expect(main.stdout).toMatch(/Service \(mailboxes create, messages list, messages show: they talk to a running service over HTTP\):\n {2}--url URL .*MAILWRIGHT_URL\n {2}--api-key KEY .*MAILWRIGHT_API_KEY\n/);
  const show = await runCli('messages', 'show', '--help');
  expect(show).toMatchObject({ code: 0, stderr: '' });
  expect(show.stdout).toMatch(/^Usage: mailwright messages show ID \[--mailbox M\] \[--json\]\n/);
  expect(show.stdout).toContain('--api-key KEY');
  expect(show.stdout).not.toContain('--data');
});
