// Integration: the `mailwright` command as people meet it — what `serve` shows on a terminal
// and in a pipe, every command's --help, exit codes, and the list commands.
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { main } from '../../src/cli/main.js';
import { HAS_SCRIPT, runCli, serveInTerminal } from './helpers/cli-process.js';
import { spawnServe } from './helpers/serve-process.js';
import { accountWithKey, cli, startTestService, tempDir } from './helpers/service.js';

const HOUR = 3_600_000;

test.describe('serve on a terminal', () => {
  test.skip(!HAS_SCRIPT, 'needs `script` (util-linux) to run serve on a pseudo-terminal');

  test('shows where the API, docs, SMTP, web UI, admin and data are, the new key with its export line, and human log lines', async () => {
    const data = join(tempDir(), 'tty.db');
    const serve = await serveInTerminal(['--data', data, '--log-level', 'info']);
    try {
      const screen = serve.screen();
      const httpUrl = /^ {2}API {8}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(screen)?.[1];
      expect(httpUrl, screen).toBeTruthy();
      expect(screen).toContain(`  API docs   ${httpUrl}/docs\n`);
      expect(screen).toMatch(/^ {2}SMTP {7}smtp:\/\/127\.0\.0\.1:\d+$/m);
      expect(screen).toContain(`  Web UI     ${httpUrl}/\n`);
      expect(screen).toContain('  Admin      admin@mailwright.local\n');
      expect(screen).toContain(`  Data       ${resolve(data)}\n`);
      const key = /shown only now:\n(mw_\S+)\n/.exec(screen)?.[1];
      expect(key, screen).toBeTruthy();
      expect(screen).toContain(`\n  export MAILWRIGHT_API_KEY=${key}\n`);
      expect((await fetch(`${httpUrl}/api/config`, { headers: { 'x-api-key': key! } })).status).toBe(200);
      // Log lines are for people: time, level, message, key=value fields; no JSON.
      expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}mailwright listening http=http:\/\/127\.0\.0\.1:\d+ smtp=smtp:\/\/127\.0\.0\.1:\d+ store=\S+$/m);
      expect(screen).not.toMatch(/^\{"level"/m);
    } finally {
      await serve.stop();
    }
  });

  test('with --api-key it names the key it uses without printing it; :memory: data is said to be lost at exit', async () => {
    const key = `mw_tty_given_${Date.now()}`;
    const serve = await serveInTerminal(['--data', ':memory:', '--api-key', key]);
    try {
      const screen = serve.screen();
      expect(screen).toContain('  API key    the one given by --api-key (not shown again)\n');
      expect(screen).toContain('  Data       in memory (lost at exit)\n');
      expect(screen).not.toContain(key);
      expect(screen).not.toContain('shown only now');
    } finally {
      await serve.stop();
    }
  });

  test('--log-format json (or MAILWRIGHT_LOG_FORMAT=json) keeps JSON log lines on a terminal', async () => {
    for (const setting of [{ args: ['--log-format', 'json'] }, { args: [], env: { MAILWRIGHT_LOG_FORMAT: 'json' } }]) {
      const serve = await serveInTerminal(['--data', ':memory:', '--log-level', 'info', ...setting.args], { env: setting.env, ready: /"msg":"mailwright listening"\}\n/ });
      try {
        const line = serve.screen().split('\n').find((l) => l.includes('"msg":"mailwright listening"'))!;
        expect(JSON.parse(line)).toMatchObject({ level: 30, service: 'mailwright', msg: 'mailwright listening', http: expect.stringMatching(/^http:\/\//) });
      } finally {
        await serve.stop();
      }
    }
  });
});

test('serve in a pipe logs JSON lines and keeps the banner lines that tools read; --log-format pretty there gives human lines', async () => {
  const json = await spawnServe(['--data', ':memory:', '--log-level', 'info']);
  try {
    await expect.poll(() => json.output()).toContain('"msg":"mailwright listening"');
    const line = json.output().split('\n').find((l) => l.includes('"msg":"mailwright listening"'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, msg: 'mailwright listening', store: ':memory:' });
    expect(json.output()).toMatch(/shown only now:\nmw_\S+\n/);
    expect(json.output()).toContain(`  API docs   ${json.httpUrl}/docs\n`);
  } finally {
    json.child.kill('SIGTERM');
    await json.exited;
  }
  const pretty = await spawnServe(['--data', ':memory:', '--log-level', 'info', '--log-format', 'pretty']);
  try {
    expect(pretty.output()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}mailwright listening http=/m);
    expect(pretty.output()).not.toContain('"level"');
  } finally {
    pretty.child.kill('SIGTERM');
    await pretty.exited;
  }
});

const COMMANDS = ['serve', 'accounts create', 'accounts list', 'keys create', 'keys list', 'keys revoke', 'mailboxes list', 'quota grant', 'quota code'];

/**
 * What `mailwright <args>` prints to stdout when it succeeds, run in this process (the usage
 * text costs no store and no server): every command twice would be some twenty process
 * starts, which a busy machine makes slow. A command that fails rejects.
 */
async function printed(...args: string[]): Promise<string> {
  let stdout = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  try {
    await main(args);
  } finally {
    process.stdout.write = write;
  }
  return stdout;
}

test('--help and -h on every command print its own usage and exit 0; the main help lists them all with the exit codes', async () => {
  for (const command of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      const stdout = await printed(...command.split(' '), flag);
      expect(stdout, `${command} ${flag}`).toMatch(new RegExp(`^Usage: mailwright ${command} `));
      expect(stdout).toContain('-h, --help');
    }
  }
  expect(await printed('serve', '--help')).toContain('--log-format F');
  expect(await printed('keys', 'list', '--help')).toContain('--email E');
  expect(await printed('help', 'keys', 'list')).toEqual(await printed('keys', 'list', '--help'));

  // The command itself, as a process: exit 0, nothing on stderr, the same text.
  const mainHelp = await runCli('--help');
  expect(mainHelp).toMatchObject({ code: 0, stderr: '', stdout: await printed('--help') });
  for (const command of COMMANDS) expect(mainHelp.stdout).toContain(`  ${command} `);
  expect(mainHelp.stdout).toMatch(/Exit codes:\n {2}0 {2}success\n {2}1 {2}failure while running.*\n {2}2 {2}usage error/);
  expect(await runCli('keys', 'list', '-h')).toEqual({ code: 0, stderr: '', stdout: await printed('keys', 'list', '--help') });

  const group = await printed('keys', '--help');
  for (const command of ['keys create', 'keys list', 'keys revoke']) expect(group).toContain(`mailwright ${command} `);
});

test('usage errors exit 2 with one line naming the flag and --help; failures while running exit 1', async () => {
  // Each exit code is a process's own: some twenty starts, given the time a busy machine takes for them.
  test.setTimeout(120_000);
  const data = join(tempDir(), 'exit.db');
  expect(await runCli('keys', 'list', '--email', 'qa@example.test', '--bogus', '--data', data)).toEqual({
    code: 2,
    stdout: '',
    stderr: 'mailwright: unknown option --bogus for `mailwright keys list`; run `mailwright keys list --help`\n',
  });
  const serve = await runCli('serve', '--no-such-flag');
  expect(serve).toMatchObject({ code: 2, stdout: '' });
  expect(serve.stderr).toBe('mailwright: unknown option --no-such-flag for `mailwright serve`; run `mailwright serve --help`\n');
  // The usage errors below started together (one after another they took most of a minute on a busy machine).
  for (const run of [
    ['accounts', 'frobnicate'],
    ['keys'],
    ['--bogus'],
    ['keys', 'create', '--data', data],
    ['keys', 'list', '--email'],
    ['quota', 'code', '--calls', 'many', '--data', data],
    ['serve', '--log-format', 'xml'],
    ['serve', '--log-level', 'loud'],
    ['accounts', 'create', '--email', 'a@example.test', '--role', 'pope', '--data', data],
  ].map(async (args) => ({ args, result: await runCli(...args) }))) {
    const { args, result } = await run;
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    expect(result.stderr).toMatch(/^mailwright: /);
  }

  await cli('accounts', 'create', '--email', 'qa@example.test', '--data', data);
  expect(await runCli('keys', 'list', '--email', 'ghost@example.test', '--data', data)).toMatchObject({ code: 1, stderr: expect.stringContaining('no account has email ghost@example.test') });
  expect(await runCli('keys', 'revoke', 'key_nope', '--data', data)).toMatchObject({ code: 1, stderr: expect.stringContaining('no live key has id key_nope') });
  const missing = join(tempDir(), 'missing.db');
  expect(await runCli('accounts', 'list', '--data', missing)).toMatchObject({ code: 1, stderr: `mailwright: there is no store at ${missing}; pass --data with the file \`mailwright serve\` uses (default ./.mailwright/mailwright.db)\n` });

  const holder = createServer();
  await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
  try {
    const taken = (holder.address() as { port: number }).port;
    expect(await runCli('serve', '--http-port', String(taken), '--smtp-port', '0', '--data', ':memory:')).toMatchObject({ code: 1, stderr: expect.stringContaining(`HTTP port ${taken} is already in use`) });
  } finally {
    holder.close();
  }
});

test('accounts list, keys list and mailboxes list show the store as aligned tables, or as JSON with --json', async () => {
  const data = join(tempDir(), 'lists.db');
  const svc = await startTestService({ data });
  try {
    const key = await accountWithKey(data, 'qa@example.test', { role: 'knight' });
    const spare = await cli('keys', 'create', '--email', 'qa@example.test', '--name', 'spare', '--scopes', 'emails', '--data', data);
    const spareId = /created key (key_\w+)/.exec(spare)![1]!;
    await cli('keys', 'revoke', spareId, '--data', data);
    const box = (await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } })).body;
    await svc.send({ from: 'app@example.test', to: box.email, subject: 'hello', text: 'x' });

    const accounts = await cli('accounts', 'list', '--data', data);
    expect(accounts).toMatch(/^EMAIL {2,}ROLE {2,}ADMIN {2}CREATED {2,}MAILBOXES\n/);
    expect(accounts).toMatch(/^admin@mailwright\.local {2,}emperor {2,}yes {4}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}0$/m);
    expect(accounts).toMatch(/^qa@example\.test {2,}knight {2,}no {5}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}1$/m);
    expect(JSON.parse(await cli('accounts', 'list', '--json', '--data', data))).toEqual([
      { id: expect.stringMatching(/^acc_/), email: 'admin@mailwright.local', role: 'emperor', admin: true, createdAt: expect.any(String), liveMailboxes: 0 },
      { id: expect.stringMatching(/^acc_/), email: 'qa@example.test', role: 'knight', admin: false, createdAt: expect.any(String), liveMailboxes: 1 },
    ]);

    const keys = await cli('keys', 'list', '--email', 'qa@example.test', '--data', data);
    const [heading, live, revoked] = keys.trimEnd().split('\n');
    expect(heading).toMatch(/^ID {2,}NAME {2,}PREFIX {2,}SCOPES {2,}CREATED {2,}REVOKED$/);
    expect(live).toMatch(new RegExp(`^key_\\w+ {2,}default {2,}${key.slice(0, 8)}… {2,}emails,config {2,}\\S+ \\S+Z {2}no$`));
    expect(revoked).toMatch(new RegExp(`^${spareId} {2,}spare {2,}mw_\\w{5}… {2,}emails {2,}\\S+ \\S+Z {2}\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`));
    expect(keys).not.toContain(key);
    const keysJson = JSON.parse(await cli('keys', 'list', '--email', 'qa@example.test', '--json', '--data', data));
    expect(keysJson).toEqual([
      { id: expect.stringMatching(/^key_/), name: 'default', prefix: key.slice(0, 8), scopes: ['emails', 'config'], createdAt: expect.any(String), revokedAt: null },
      { id: spareId, name: 'spare', prefix: expect.stringMatching(/^mw_/), scopes: ['emails'], createdAt: expect.any(String), revokedAt: expect.any(String) },
    ]);

    const row = new RegExp(`^${box.email.replace(/\./g, '\\.')} {2,}${box.id} {2,}qa@example\\.test {2,}\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ \\(in (?:59m|1h 0m)\\) {2}1$`, 'm');
    const mailboxes = await cli('mailboxes', 'list', '--data', data);
    expect(mailboxes).toMatch(/^ADDRESS {2,}ID {2,}ACCOUNT {2,}EXPIRES {2,}MESSAGES\n/);
    expect(mailboxes).toMatch(row);
    expect(await cli('mailboxes', 'list', '--email', 'qa@example.test', '--data', data)).toMatch(row);
    expect(await cli('mailboxes', 'list', '--email', 'admin@mailwright.local', '--data', data)).toBe('admin@mailwright.local has no live mailboxes\n');
    expect(JSON.parse(await cli('mailboxes', 'list', '--json', '--data', data))).toEqual([
      { id: box.id, address: box.email, accountEmail: 'qa@example.test', createdAt: box.createdAt, expiresAt: box.expiresAt, messages: 1 },
    ]);
    expect(JSON.parse(await cli('mailboxes', 'list', '--json', '--email', 'admin@mailwright.local', '--data', data))).toEqual([]);
  } finally {
    await svc.close();
  }
});
