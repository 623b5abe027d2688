// `mailwright mcp`: an MCP server on stdio whose tools create inboxes, read mail, wait for a
// message, link or code (by the API's long-poll), and inject SMTP faults, through the typed
// client against a running service. Every failure of a tool is a tool result with isError.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MailwrightApiError, MailwrightClient, MailwrightError, type FaultRuleBody, type Message, type MessageSummary } from '../client/index.js';
import { findCode, findVerificationLink } from '../extract/index.js';
import { VERSION } from '../server/version.js';

export interface McpOptions {
  url: string;
  apiKey: string;
  /** What `create_inbox` reports as `smtp`; null when unknown. */
  smtpUrl: string | null;
}

/** Longest wait a tool accepts, seconds. */
export const MAX_WAIT_SECONDS = 120;
/** The API holds a long-poll at most this long, seconds. */
const LONG_POLL_MAX = 30;

/** A tool failure whose text says it all. */
class ToolError extends Error {}

const summaryShape = {
  id: z.string(),
  subject: z.string(),
  from: z.string().nullable(),
  received_at: z.string(),
};
const Summary = z.object(summaryShape);
type Summary = z.infer<typeof Summary>;

function summary(m: MessageSummary): Summary {
  return { id: m.id, subject: m.subject, from: m.from ? m.from.address : null, received_at: m.receivedAt };
}

const waitShape = {
  inbox: z.string().min(1).describe('the inbox id or address'),
  subject: z.string().optional().describe('only a message whose subject contains this (case-insensitive)'),
  from: z.string().optional().describe("only a message whose sender's address or name contains this (case-insensitive)"),
  timeout_seconds: z.number().positive().max(MAX_WAIT_SECONDS).default(30).describe(`how long to wait, at most ${MAX_WAIT_SECONDS} (default 30)`),
  after_message_id: z.string().optional().describe('only a message that arrived after this one'),
};
type WaitArgs = { inbox: string; subject?: string; from?: string; timeout_seconds: number; after_message_id?: string };

function ok<T extends Record<string, unknown>>(text: string, structured: T): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function failure(error: unknown, inbox?: string): CallToolResult {
  let text: string;
  if (error instanceof ToolError) text = error.message;
  else if (error instanceof MailwrightApiError) {
    const where = inbox === undefined ? '' : ` (inbox ${inbox})`;
    text = error.status === 404 ? `${error.code}: ${error.detail}${where}; create an inbox with create_inbox` : `${error.code}: ${error.detail}${where}`;
  } else if (error instanceof MailwrightError) text = `${error.code}: ${error.message.split('\n')[0]}`;
  else text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

/** Runs a tool body; any failure becomes a tool error result, never a protocol error. */
async function guarded(inbox: string | undefined, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return failure(error, inbox);
  }
}

function describeMatch(args: WaitArgs, extra: string[]): string {
  const parts = [
    ...(args.subject !== undefined ? [`subject containing "${args.subject}"`] : []),
    ...(args.from !== undefined ? [`from "${args.from}"`] : []),
    ...(args.after_message_id !== undefined ? [`after message ${args.after_message_id}`] : []),
    ...extra,
  ];
  return parts.length === 0 ? 'any message' : `a message with ${parts.join(', ')}`;
}

function matches(m: MessageSummary, args: WaitArgs): boolean {
  if (args.subject !== undefined && !m.subject.toLowerCase().includes(args.subject.toLowerCase())) return false;
  if (args.from !== undefined) {
    const needle = args.from.toLowerCase();
    if (!m.from || !(m.from.address.toLowerCase().includes(needle) || m.from.name.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/**
 * Waits by the API's long-poll until a message of the inbox matches and `pick` finds what it
 * wants in it; the messages already there count too (after `after_message_id` when given).
 */
async function waitFor<T>(client: MailwrightClient, args: WaitArgs, pick: (m: Message) => T | undefined, extra: string[]): Promise<{ message: Message; found: T }> {
  const deadline = Date.now() + args.timeout_seconds * 1000;
  const arrived: string[] = [];
  let cursor: string | undefined;
  let eligible = args.after_message_id === undefined;
  let first = true;
  for (;;) {
    const left = (deadline - Date.now()) / 1000;
    const wait = first ? 0 : Math.min(LONG_POLL_MAX, Math.max(0, left));
    const page = await client.listEmails({ mailbox: args.inbox, includeBody: true, limit: 100, ...(cursor !== undefined ? { after: cursor } : {}), ...(wait > 0 ? { wait } : {}) });
    cursor = page.cursor;
    for (const m of page.messages as Message[]) {
      if (!eligible) {
        if (m.id === args.after_message_id) eligible = true;
        continue;
      }
      arrived.push(m.subject || '(no subject)');
      if (!matches(m, args)) continue;
      const found = pick(m);
      if (found !== undefined) return { message: m, found };
    }
    if (first && page.messages.length < 100) {
      first = false;
      if (!eligible) throw new ToolError(`no message ${args.after_message_id} in inbox ${args.inbox} (after_message_id); list its messages with list_messages`);
    }
    if (page.messages.length >= 100) continue; // more already there: read on at once
    if (Date.now() >= deadline) break;
  }
  const what = arrived.length === 0 ? 'nothing arrived' : `what arrived: ${arrived.map((s) => JSON.stringify(s)).join(', ')}`;
  throw new ToolError(`timed out after ${args.timeout_seconds}s waiting in inbox ${args.inbox} for ${describeMatch(args, extra)}; ${what}`);
}

/** The MCP server with its tools, not yet connected. */
export function createMcpServer(client: MailwrightClient, options: McpOptions): McpServer {
  const server = new McpServer({ name: 'mailwright', version: VERSION });

  server.registerTool(
    'create_inbox',
    {
      title: 'Create inbox',
      description: 'Create a disposable inbox; mail sent to its address over SMTP lands in it.',
      inputSchema: {
        name: z.string().min(1).optional().describe('the local part, e.g. alice (default random)'),
        expiry_seconds: z.number().int().min(60).optional().describe('how long it lives, seconds (default 3600, at least 60)'),
      },
      outputSchema: { id: z.string(), address: z.string(), expires_at: z.string(), smtp: z.string().nullable() },
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ name, expiry_seconds }) =>
      guarded(undefined, async () => {
        const mailbox = await client.createMailbox({ expiryTime: (expiry_seconds ?? 3600) * 1000, ...(name !== undefined ? { name } : {}) });
        const result = { id: mailbox.id, address: mailbox.email, expires_at: mailbox.expiresAt, smtp: options.smtpUrl };
        return ok(`created inbox ${result.address} (id ${result.id}), expires ${result.expires_at}${result.smtp ? `; SMTP ${result.smtp}` : ''}`, result);
      }),
  );

  server.registerTool(
    'list_messages',
    {
      title: 'List messages',
      description: 'List the messages of an inbox (newest first): id, subject, sender, time.',
      inputSchema: { inbox: waitShape.inbox },
      outputSchema: { inbox: z.string(), messages: z.array(Summary) },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ inbox }) =>
      guarded(inbox, async () => {
        const page = await client.getMailbox(inbox, { limit: 100 });
        const messages = page.messages.map(summary);
        const lines = messages.map((m) => `${m.received_at}  ${m.id}  ${m.from ?? '(no sender)'}  ${m.subject || '(no subject)'}`);
        return ok(messages.length === 0 ? `no messages in ${page.mailbox.email} yet` : lines.join('\n'), { inbox: page.mailbox.email, messages });
      }),
  );

  server.registerTool(
    'read_message',
    {
      title: 'Read message',
      description: 'Read one message of an inbox as text, HTML or its raw source.',
      inputSchema: {
        inbox: waitShape.inbox,
        message_id: z.string().min(1),
        format: z.enum(['text', 'html', 'source']).default('text'),
      },
      outputSchema: { ...summaryShape, format: z.enum(['text', 'html', 'source']), content: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ inbox, message_id, format }) =>
      guarded(inbox, async () => {
        const mailbox = (await client.getMailbox(inbox, { limit: 1 })).mailbox;
        const message = await client.getMessage(mailbox.id, message_id);
        let content: string;
        if (format === 'source') content = (await client.getRawMessage(mailbox.id, message_id)) as string;
        else if (format === 'html') content = message.html ?? '';
        else content = message.text ?? '';
        const note = content === '' ? `(the message has no ${format === 'html' ? 'HTML' : 'text'} part)` : content;
        return ok(`Subject: ${message.subject}\nFrom: ${message.from?.address ?? ''}\n\n${note}`, { ...summary(message), format, content });
      }),
  );

  server.registerTool(
    'wait_for_message',
    {
      title: 'Wait for message',
      description: 'Wait until a message matching subject/from arrives in the inbox (messages already there count); returns it.',
      inputSchema: waitShape,
      outputSchema: { inbox: z.string(), message: Summary, text: z.string().nullable() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      guarded(args.inbox, async () => {
        const { message } = await waitFor(client, args, () => true, []);
        return ok(`message ${message.id} "${message.subject}" from ${message.from?.address ?? '(no sender)'}\n\n${message.text ?? ''}`, { inbox: message.mailbox, message: summary(message), text: message.text });
      }),
  );

  server.registerTool(
    'wait_for_link',
    {
      title: 'Wait for verification link',
      description: 'Wait for a message matching subject/from that holds a verification, reset or magic link; returns the link.',
      inputSchema: { ...waitShape, url_includes: z.string().optional().describe('only a link whose URL contains this') },
      outputSchema: { inbox: z.string(), message: Summary, link: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      guarded(args.inbox, async () => {
        const hints = args.url_includes !== undefined ? { urlIncludes: args.url_includes } : undefined;
        const extra = ['a verification link', ...(args.url_includes !== undefined ? [`URL containing "${args.url_includes}"`] : [])];
        const { message, found } = await waitFor(client, args, (m) => findVerificationLink(m, hints), extra);
        return ok(found, { inbox: message.mailbox, message: summary(message), link: found });
      }),
  );

  server.registerTool(
    'wait_for_code',
    {
      title: 'Wait for one-time code',
      description: 'Wait for a message matching subject/from that holds a one-time code; returns the code.',
      inputSchema: { ...waitShape, digits: z.number().int().min(3).max(12).optional().describe('the code has exactly this many digits') },
      outputSchema: { inbox: z.string(), message: Summary, code: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      guarded(args.inbox, async () => {
        const hints = args.digits !== undefined ? { digits: args.digits } : undefined;
        const extra = [args.digits !== undefined ? `a ${args.digits}-digit code` : 'a one-time code'];
        const { message, found } = await waitFor(client, args, (m) => findCode(m, hints), extra);
        return ok(found, { inbox: message.mailbox, message: summary(message), code: found });
      }),
  );

  server.registerTool(
    'inject_fault',
    {
      title: 'Inject SMTP fault',
      description: "Add a fault rule to the inbox: deliveries to it get this SMTP reply (code), a delay (ms) or a dropped connection at a stage ('rcpt' or 'data').",
      inputSchema: {
        inbox: waitShape.inbox,
        at: z.enum(['rcpt', 'data']),
        code: z.number().int().min(400).max(599).optional().describe('the SMTP reply, 4xx or 5xx; 421 also closes'),
        delay: z.number().int().min(1).max(60_000).optional().describe('wait this many ms before the reply'),
        disconnect: z.boolean().optional().describe('close the connection without a reply (not with code)'),
        times: z.number().int().min(1).optional().describe('how many deliveries it applies to (default until cleared)'),
        probability: z.number().gt(0).max(1).optional().describe('the chance it applies to a delivery'),
      },
      outputSchema: {
        id: z.string(), at: z.string(), code: z.number().optional(), enhancedCode: z.string().optional(), message: z.string().optional(),
        delay: z.number().optional(), disconnect: z.boolean().optional(), times: z.number().optional(), probability: z.number(),
        hits: z.number(), remaining: z.number().optional(), createdAt: z.string(),
      },
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ inbox, ...rule }) =>
      guarded(inbox, async () => {
        const body = Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined)) as FaultRuleBody;
        const added = await client.addFault(inbox, body);
        const what = [added.code !== undefined ? `reply ${added.code}${added.enhancedCode ? ` ${added.enhancedCode}` : ''}` : '', added.delay !== undefined ? `delay ${added.delay}ms` : '', added.disconnect ? 'disconnect' : ''].filter(Boolean).join(', ');
        return ok(`fault ${added.id} on ${inbox}: at ${added.at}, ${what}${added.times !== undefined ? `, ${added.times} times` : ', until cleared'}`, { ...added });
      }),
  );

  server.registerTool(
    'clear_faults',
    {
      title: 'Clear SMTP faults',
      description: 'Remove every fault rule of the inbox.',
      inputSchema: { inbox: waitShape.inbox },
      outputSchema: { inbox: z.string(), cleared: z.boolean() },
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
    },
    async ({ inbox }) =>
      guarded(inbox, async () => {
        await client.clearFaults(inbox);
        return ok(`cleared the fault rules of ${inbox}`, { inbox, cleared: true });
      }),
  );

  return server;
}

/** Serves MCP on stdin/stdout until the client closes it. */
export async function runMcpServer(options: McpOptions): Promise<void> {
  const client = new MailwrightClient({ baseURL: options.url, apiKey: options.apiKey, timeout: 15_000 });
  const server = createMcpServer(client, options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close().catch(() => {});
  await client.close().catch(() => {});
}
