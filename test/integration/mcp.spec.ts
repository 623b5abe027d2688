// Integration: the MCP tools as an agent meets them — the SDK's own client, over stdio against
// the built CLI (`mailwright mcp`) and over Streamable HTTP against `/mcp` of a real service:
// the tools and their schemas, waits that resolve on arrival, extraction of links and codes,
// tool errors that say what happened, injected SMTP faults, the key and the quota of `/mcp`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN_KEY, ROOT, accountWithKey, cleanEnv, startTestService, tempDir, type TestService } from './helpers/service.js';
import { runCliWith } from './helpers/cli-process.js';

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** An SDK client connected over stdio to `mailwright mcp` with these MAILWRIGHT_* variables and arguments. */
async function stdioClient(env: Record<string, string>, args: string[] = [], cwd = ROOT): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist', 'cli.js'), 'mcp', ...args], env: { ...cleanEnv(), ...env } as Record<string, string>, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'mcp-spec', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** An SDK client connected over Streamable HTTP to `/mcp` with these request headers. */
async function httpClient(service: TestService, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-spec', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.httpUrl), { requestInit: { headers } }));
  return client;
}

function caller(client: Client) {
  return async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
}

for (const kind of ['stdio', 'http'] as const) {
  test.describe(`over ${kind}`, () => {
    let service: TestService;
    let client: Client;
    let call: ReturnType<typeof caller>;

    test.beforeAll(async () => {
      service = await startTestService();
      client = kind === 'stdio'
        ? await stdioClient({ MAILWRIGHT_URL: service.httpUrl, MAILWRIGHT_API_KEY: ADMIN_KEY, MAILWRIGHT_SMTP_URL: service.smtpUrl })
        : await httpClient(service, { 'x-api-key': ADMIN_KEY });
      call = caller(client);
    });

    test.afterAll(async () => {
      await client?.close();
      await service?.close();
    });

    async function inbox(): Promise<{ inbox_id: string; address: string }> {
      const result = await call('create_inbox', {});
      expect(result.isError, text(result)).toBeFalsy();
      return result.structuredContent as { inbox_id: string; address: string };
    }

    test('lists the eight tools, each with a description, input and output schemas; the instructions name the SMTP address', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['clear_faults', 'create_inbox', 'inject_fault', 'list_messages', 'read_message', 'wait_for_code', 'wait_for_link', 'wait_for_message']);
      for (const tool of tools) {
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(tool.description, tool.name).toBeTruthy();
      }
      // Portable schemas (what the MCP Inspector's --strict checks): one type per schema, no bare true/false schemas, none untyped.
      const walk = (schema: unknown, path: string): void => {
        expect(typeof schema, path).toBe('object');
        const node = schema as { type?: unknown; properties?: Record<string, unknown>; items?: unknown };
        expect(typeof node.type, `${path} has one type`).toBe('string');
        for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${name}`);
        if (node.items !== undefined) walk(node.items, `${path}[]`);
      };
      for (const tool of tools) {
        walk(tool.inputSchema, `${tool.name}.input`);
        walk(tool.outputSchema, `${tool.name}.output`);
      }
      expect(tools.find((t) => t.name === 'list_messages')!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(tools.find((t) => t.name === 'wait_for_code')!.inputSchema.properties).toHaveProperty('after_message_id');
      expect(client.getInstructions()).toContain(kind === 'stdio' ? service.smtpUrl : `:${service.smtpPort}`);
    });

    test('create_inbox answers text and structured content with the SMTP address', async () => {
      const name = `mcp-${kind}-${Date.now()}`;
      const result = await call('create_inbox', { name, expiry_minutes: 10 });
      expect(result.isError, text(result)).toBeFalsy();
      expect(result.structuredContent).toEqual({ address: `${name}@mailwright.test`, inbox_id: expect.stringMatching(/^mbx_/), expires_at: expect.any(String), smtp: kind === 'stdio' ? service.smtpUrl : `smtp://127.0.0.1:${service.smtpPort}` });
      const lifetime = Date.parse((result.structuredContent as { expires_at: string }).expires_at) - Date.now();
      expect(lifetime).toBeGreaterThan(9 * 60_000);
      expect(lifetime).toBeLessThanOrEqual(10 * 60_000);
      expect(text(result)).toContain(`${name}@mailwright.test`);
    });

    test('wait_for_link begun before the mail is sent resolves on arrival; wait_for_code after it, list and read follow', async () => {
      const box = await inbox();
      const waiting = call('wait_for_link', { inbox: box.address, subject: 'verify', timeout_seconds: 60 });
      // The wait is begun with the inbox still empty: it can only be answered by the mail sent below.
      await expect.poll(async () => ((await service.api('GET', `/api/emails/${box.inbox_id}`)).body as { total: number }).total).toBe(0);
      await service.send({ from: 'app@example.com', to: box.address, subject: 'Verify your email', text: 'Welcome! Confirm your address: https://app.example.com/verify?token=abc123\n\nThanks' });
      const sent = Date.now();
      const link = await waiting;
      expect(link.isError, text(link)).toBeFalsy();
      expect(Date.now() - sent).toBeLessThan(5_000);
      expect(link.structuredContent).toMatchObject({ link: 'https://app.example.com/verify?token=abc123', subject: 'Verify your email', from: 'app@example.com', message_id: expect.stringMatching(/^msg_/) });
      const first = (link.structuredContent as { message_id: string }).message_id;

      const codeWait = call('wait_for_code', { inbox: box.inbox_id, after_message_id: first, digits: 6, timeout_seconds: 60 });
      await service.send({ from: 'app@example.com', to: box.address, subject: 'Your sign-in code', text: 'Your verification code is 482913. It expires in 10 minutes.' });
      const code = await codeWait;
      expect(code.isError, text(code)).toBeFalsy();
      expect(code.structuredContent).toMatchObject({ code: '482913', subject: 'Your sign-in code' });
      expect(text(code).split('\n')[0]).toBe('482913');
      expect(text(code)).toContain(`pass after_message_id: "${(code.structuredContent as { message_id: string }).message_id}"`);

      const list = await call('list_messages', { inbox: box.address });
      expect(list.structuredContent).toMatchObject({ inbox: box.address, total: 2, messages: [{ subject: 'Your sign-in code' }, { subject: 'Verify your email' }] });

      const read = await call('read_message', { inbox: box.address, message_id: first });
      expect(read.isError, text(read)).toBeFalsy();
      expect(read.structuredContent).toMatchObject({ message_id: first, format: 'text', content: expect.stringContaining('https://app.example.com/verify?token=abc123') });
      const source = await call('read_message', { inbox: box.inbox_id, message_id: first, format: 'source' });
      expect((source.structuredContent as { content: string }).content).toMatch(/^Subject: Verify your email/im);
    });

    test('without after_message_id a wait answers the newest match already there; with it, the first match after it', async () => {
      const box = await inbox();
      for (const n of [1, 2, 3]) await service.send({ from: 'app@example.com', to: box.address, subject: `Code ${n}`, text: `Your verification code is 10000${n}.` });
      const newest = await call('wait_for_code', { inbox: box.address, timeout_seconds: 5 });
      expect(newest.structuredContent).toMatchObject({ code: '100003', subject: 'Code 3' });
      const list = (await call('list_messages', { inbox: box.address })).structuredContent as { messages: Array<{ message_id: string; subject: string }> };
      const oldest = list.messages.find((m) => m.subject === 'Code 1')!.message_id;
      const next = await call('wait_for_code', { inbox: box.address, after_message_id: oldest, timeout_seconds: 5 });
      expect(next.structuredContent).toMatchObject({ code: '100002', subject: 'Code 2' });
      const message = await call('wait_for_message', { inbox: box.address, digits: 6, subject: 'code 1', timeout_seconds: 5 });
      expect(message.structuredContent).toMatchObject({ subject: 'Code 1', text: expect.stringContaining('100001') });
    });

    test('a wait that times out is a tool error naming the inbox, the match and what arrived', async () => {
      const box = await inbox();
      await service.send({ from: 'news@example.com', to: box.address, subject: 'Weekly digest', text: 'Nothing to verify here.' });
      const result = await call('wait_for_link', { inbox: box.address, subject: 'password reset', timeout_seconds: 1 });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(box.address);
      expect(text(result)).toContain('for a verification link in a message with subject containing "password reset"');
      expect(text(result)).toContain('"Weekly digest" (other subject)');
      await service.send({ from: 'app@example.com', to: box.address, subject: 'Your password reset', html: '<p>No account uses this address. <a href="https://app.example.com/signup">Sign up</a></p>' });
      const noLink = await call('wait_for_link', { inbox: box.address, subject: 'password reset', timeout_seconds: 1 });
      expect(text(noLink)).toContain('"Your password reset" (no verification link; its links: https://app.example.com/signup)');
    });

    test('a wait longer than the client\'s request timeout lives on the progress it reports', async () => {
      test.skip(kind === 'stdio', 'the same server code reports progress on both transports; one is enough for a 12 s test');
      const box = await inbox();
      const progress: number[] = [];
      const result = (await client.callTool({ name: 'wait_for_message', arguments: { inbox: box.address, timeout_seconds: 12 } }, undefined, {
        timeout: 11_000, // the first progress comes at 10 s, the answer at 12 s
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.push(p.progress),
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('timed out after 12 s');
      expect(progress.length).toBeGreaterThanOrEqual(1);
    });

    test('an unknown inbox or message, or bad arguments, are tool errors with a clear text', async () => {
      const unknown = await call('wait_for_message', { inbox: 'nobody-here@mailwright.test', timeout_seconds: 1 });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toBe('mailbox_not_found: there is no inbox nobody-here@mailwright.test (it never existed, or it expired); create one with create_inbox');
      const box = await inbox();
      const missing = await call('read_message', { inbox: box.inbox_id, message_id: 'msg_nope' });
      expect(missing.isError).toBe(true);
      expect(text(missing)).toMatch(/message_not_found/);
      const after = await call('wait_for_code', { inbox: box.inbox_id, after_message_id: 'msg_nope', timeout_seconds: 1 });
      expect(text(after)).toContain('has no message msg_nope');
      const tooLong = await call('wait_for_message', { inbox: box.inbox_id, timeout_seconds: 600 });
      expect(tooLong.isError).toBe(true);
      expect(text(tooLong)).toContain('timeout_seconds');
    });

    test('inject_fault makes SMTP refuse delivery with 451 and its own text; clear_faults lets it through', async () => {
      const box = await inbox();
      const fault = await call('inject_fault', { inbox: box.inbox_id, at: 'rcpt', code: 451, enhanced_code: '4.3.2', message: 'try later, please', times: 2 });
      expect(fault.isError, text(fault)).toBeFalsy();
      expect(fault.structuredContent).toMatchObject({ fault_id: expect.any(String), at: 'rcpt', code: 451, enhanced_code: '4.3.2', message: 'try later, please', times: 2, disconnect: false, probability: 1 });
      expect(fault.structuredContent).not.toHaveProperty('delay_ms');
      await expect(service.send({ from: 'app@example.com', to: box.address, subject: 'refused', text: 'x' })).rejects.toMatchObject({ responseCode: 451, response: expect.stringContaining('4.3.2 try later, please') });
      const cleared = await call('clear_faults', { inbox: box.inbox_id });
      expect(cleared.isError, text(cleared)).toBeFalsy();
      await service.send({ from: 'app@example.com', to: box.address, subject: 'accepted', text: 'x' });
      const got = await call('wait_for_message', { inbox: box.inbox_id, subject: 'accepted', timeout_seconds: 10 });
      expect(got.isError, text(got)).toBeFalsy();
      const invalid = await call('inject_fault', { inbox: box.inbox_id, at: 'rcpt', code: 451, disconnect: true });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toMatch(/invalid_request: .*disconnect/);
    });
  });
}

test.describe('/mcp on the service', () => {
  let service: TestService;

  test.beforeAll(async () => {
    service = await startTestService({ data: join(tempDir(), 'mcp.db'), quota: { civilian: 6 } });
  });

  test.afterAll(async () => {
    await service?.close();
  });

  test('refuses a request without a key or with an unknown one (401, WWW-Authenticate); takes the key as Authorization: Bearer', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const extra of [{}, { authorization: 'Bearer mw_not_a_key' }] as Array<Record<string, string>>) {
      const refused = await fetch(new URL('/mcp', service.httpUrl), { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(init) });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await refused.json()) as { detail: string }).detail).toContain('Authorization: Bearer');
    }
    const client = await httpClient(service, { authorization: `Bearer ${ADMIN_KEY}` });
    const result = caller(client);
    expect((await result('create_inbox', {})).isError).toBeFalsy();
    await client.close();
    const get = await fetch(new URL('/mcp', service.httpUrl), { headers: { 'x-api-key': ADMIN_KEY } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  test('over stdio without MAILWRIGHT_SMTP_URL it reports the SMTP address the service gives in GET /api/config', async () => {
    expect((await service.api('GET', '/api/config')).body.smtpPort).toBe(service.smtpPort);
    const client = await stdioClient({ MAILWRIGHT_URL: service.httpUrl, MAILWRIGHT_API_KEY: ADMIN_KEY });
    try {
      expect(client.getInstructions()).toContain(`over SMTP to smtp://127.0.0.1:${service.smtpPort} `);
      expect((await caller(client)('create_inbox', {})).structuredContent).toMatchObject({ smtp: `smtp://127.0.0.1:${service.smtpPort}` });
    } finally {
      await client.close();
    }
  });

  test('each tool call counts one API call of the quota; past it a tool call is a tool error naming the quota', async () => {
    const key = await accountWithKey(service.data, `mcp-quota-${Date.now()}@example.com`);
    const client = await httpClient(service, { 'x-api-key': key });
    const call = caller(client);
    const used = async () => ((await service.api('GET', '/api/config', { key })).body as { quota: { used: number } }).quota.used;
    const before = await used(); // this call counts too
    const box = (await call('create_inbox', {})).structuredContent as { address: string };
    await service.send({ from: 'app@example.com', to: box.address, subject: 'Your code', text: 'Your code is 246810.' });
    expect((await call('wait_for_code', { inbox: box.address, timeout_seconds: 10 })).structuredContent).toMatchObject({ code: '246810' });
    expect((await call('read_message', { inbox: box.address, message_id: ((await call('list_messages', { inbox: box.address })).structuredContent as { messages: Array<{ message_id: string }> }).messages[0]!.message_id, format: 'source' })).isError).toBeFalsy();
    // initialize and tools/list are free; four tool calls, then the read of the usage.
    await client.listTools();
    expect(await used()).toBe(before + 1 + 4);
    const refused = await call('list_messages', { inbox: box.address });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/quota_exhausted: account mcp-quota-.* used all 6 API calls/);
    await client.close();
  });
});

test.describe('mailwright mcp without MAILWRIGHT_URL', () => {
  test('starts its own service under ./.mailwright of its directory and reports where mail must be sent', async () => {
    const cwd = tempDir('mailwright-mcp-');
    const client = await stdioClient({}, ['--http-port', '0', '--smtp-port', '0'], cwd);
    try {
      const smtp = /smtp:\/\/127\.0\.0\.1:(\d+)/.exec(client.getInstructions() ?? '');
      expect(smtp, client.getInstructions()).not.toBeNull();
      const call = caller(client);
      const created = await call('create_inbox', { name: 'agent' });
      expect(created.structuredContent).toMatchObject({ address: 'agent@mailwright.test', smtp: smtp![0] });
      const waiting = call('wait_for_link', { inbox: 'agent@mailwright.test', timeout_seconds: 60 });
      const nodemailer = (await import('nodemailer')).default;
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: Number(smtp![1]), secure: false, ignoreTLS: true });
      await transport.sendMail({ from: 'app@example.com', to: 'agent@mailwright.test', subject: 'Reset your password', html: '<p>Someone asked to reset your password.</p><p><a href="http://localhost:3000/reset/Zx81/">Reset password</a></p>' });
      expect((await waiting).structuredContent).toMatchObject({ link: 'http://localhost:3000/reset/Zx81/' });
    } finally {
      await client.close();
    }
    expect(existsSync(join(cwd, '.mailwright', 'mailwright.db'))).toBe(true);
  });

  test('SIGTERM stops its own service and the process, though stdin is still open', async () => {
    const cwd = tempDir('mailwright-mcp-');
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'mcp', '--http-port', '0', '--smtp-port', '0'], { cwd, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => /web UI and API (http:\S+),/.exec(stderr)?.[1]).toBeTruthy();
    const url = /web UI and API (http:\S+),/.exec(stderr)![1]!;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const record = join(cwd, '.mailwright', 'mailwright.db.service.json');
    expect(existsSync(record)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
    expect(existsSync(record)).toBe(false);
  });

  test('with MAILWRIGHT_URL but no key it exits 2 saying what to set', async () => {
    const result = await runCliWith(['mcp'], { MAILWRIGHT_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MAILWRIGHT_API_KEY');
  });
});
