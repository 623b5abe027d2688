// Integration: `mailwright mcp` as an agent meets it — the SDK's own client over stdio against
// the built CLI and a real service: the tools and their schemas, waits that resolve on arrival,
// extraction of links and codes, tool errors that say what happened, and injected SMTP faults.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN_KEY, ROOT, cleanEnv, startTestService, type TestService } from './helpers/service.js';
import { runCli } from './helpers/cli-process.js';

let service: TestService;
let client: Client;

test.beforeAll(async () => {
  service = await startTestService();
  const env = { ...cleanEnv(), MAILWRIGHT_URL: service.httpUrl, MAILWRIGHT_API_KEY: ADMIN_KEY, MAILWRIGHT_SMTP_URL: `smtp://127.0.0.1:${service.smtpPort}` };
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist', 'cli.js'), 'mcp'], env: env as Record<string, string>, cwd: ROOT, stderr: 'pipe' });
  client = new Client({ name: 'mcp-spec', version: '0.0.0' });
  await client.connect(transport);
});

test.afterAll(async () => {
  await client?.close();
  await service?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function inbox(): Promise<{ id: string; address: string }> {
  const result = await call('create_inbox', {});
  expect(result.isError, text(result)).toBeFalsy();
  return result.structuredContent as { id: string; address: string };
}

test('lists the eight tools, each with input and output schemas', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['clear_faults', 'create_inbox', 'inject_fault', 'list_messages', 'read_message', 'wait_for_code', 'wait_for_link', 'wait_for_message']);
  for (const tool of tools) {
    expect(tool.inputSchema.type, tool.name).toBe('object');
    expect(tool.outputSchema?.type, tool.name).toBe('object');
    expect(tool.description, tool.name).toBeTruthy();
  }
  expect(tools.find((t) => t.name === 'list_messages')!.annotations).toMatchObject({ readOnlyHint: true });
});

test('create_inbox answers text and structured content with the SMTP address', async () => {
  const result = await call('create_inbox', { name: `mcp-${Date.now()}`, expiry_seconds: 600 });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({ id: expect.any(String), address: expect.stringMatching(/^mcp-\d+@/), expires_at: expect.any(String), smtp: `smtp://127.0.0.1:${service.smtpPort}` });
  expect(text(result)).toContain((result.structuredContent as { address: string }).address);
});

test('wait_for_link begun before the mail is sent resolves on arrival; wait_for_code, list and read follow', async () => {
  const box = await inbox();
  const started = Date.now();
  const waiting = call('wait_for_link', { inbox: box.address, subject: 'verify', timeout_seconds: 20 });
  await service.send({ from: 'app@example.com', to: box.address, subject: 'Verify your email', text: 'Welcome! Confirm your address: https://app.example.com/verify?token=abc123\n\nThanks' });
  const link = await waiting;
  expect(link.isError, text(link)).toBeFalsy();
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(link.structuredContent).toMatchObject({ link: 'https://app.example.com/verify?token=abc123', message: { subject: 'Verify your email', from: 'app@example.com' } });
  const first = (link.structuredContent as { message: { id: string } }).message.id;

  const codeWait = call('wait_for_code', { inbox: box.id, after_message_id: first, digits: 6, timeout_seconds: 20 });
  await service.send({ from: 'app@example.com', to: box.address, subject: 'Your sign-in code', text: 'Your verification code is 482913. It expires in 10 minutes.' });
  const code = await codeWait;
  expect(code.isError, text(code)).toBeFalsy();
  expect(code.structuredContent).toMatchObject({ code: '482913' });
  expect(text(code)).toBe('482913');

  const list = await call('list_messages', { inbox: box.address });
  expect((list.structuredContent as { messages: unknown[] }).messages).toHaveLength(2);

  const read = await call('read_message', { inbox: box.address, message_id: first, format: 'text' });
  expect(read.isError, text(read)).toBeFalsy();
  expect(read.structuredContent).toMatchObject({ id: first, format: 'text', content: expect.stringContaining('https://app.example.com/verify?token=abc123') });
  const source = await call('read_message', { inbox: box.id, message_id: first, format: 'source' });
  expect((source.structuredContent as { content: string }).content).toMatch(/^Subject: Verify your email/im);
});

test('a wait that times out is a tool error naming the inbox, the match and what arrived', async () => {
  const box = await inbox();
  await service.send({ from: 'news@example.com', to: box.address, subject: 'Weekly digest', text: 'Nothing to verify here.' });
  const result = await call('wait_for_message', { inbox: box.address, subject: 'password reset', timeout_seconds: 1 });
  expect(result.isError).toBe(true);
  expect(text(result)).toContain(box.address);
  expect(text(result)).toContain('password reset');
  expect(text(result)).toContain('"Weekly digest"');
});

test('an unknown inbox or message is a tool error, not a protocol error', async () => {
  const unknown = await call('wait_for_message', { inbox: 'nobody-here@mailwright.test', timeout_seconds: 1 });
  expect(unknown.isError).toBe(true);
  expect(text(unknown)).toMatch(/nobody-here@mailwright\.test/);
  const box = await inbox();
  const missing = await call('read_message', { inbox: box.id, message_id: 'msg_nope', format: 'text' });
  expect(missing.isError).toBe(true);
  expect(text(missing)).toMatch(/not_found/);
});

test('inject_fault makes SMTP refuse delivery with 451; clear_faults lets it through', async () => {
  const box = await inbox();
  const fault = await call('inject_fault', { inbox: box.id, at: 'rcpt', code: 451 });
  expect(fault.isError, text(fault)).toBeFalsy();
  expect(fault.structuredContent).toMatchObject({ id: expect.any(String), at: 'rcpt', code: 451 });
  await expect(service.send({ from: 'app@example.com', to: box.address, subject: 'refused', text: 'x' })).rejects.toMatchObject({ responseCode: 451 });
  const cleared = await call('clear_faults', { inbox: box.id });
  expect(cleared.isError, text(cleared)).toBeFalsy();
  await service.send({ from: 'app@example.com', to: box.address, subject: 'accepted', text: 'x' });
  const got = await call('wait_for_message', { inbox: box.id, subject: 'accepted', timeout_seconds: 10 });
  expect(got.isError, text(got)).toBeFalsy();
});

test('without MAILWRIGHT_URL and MAILWRIGHT_API_KEY it exits 2 naming both', async () => {
  const result = await runCli('mcp');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('MAILWRIGHT_URL');
  expect(result.stderr).toContain('MAILWRIGHT_API_KEY');
});
