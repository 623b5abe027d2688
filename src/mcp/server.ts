// The MCP tools of mailwright: create inboxes, read mail, wait for a message, link or code (by
// the API's long-poll, so a wait resolves on arrival), and inject SMTP faults, through the typed
// client. The same server answers on stdio (`mailwright mcp`) and, per request, at `/mcp` on the
// service. Every failure of a tool is a tool result with isError, never a protocol error.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MailwrightApiError, MailwrightClient, MailwrightError, type FaultRuleBody, type ListEmailsResponse, type Message, type MessageSummary } from '../client/index.js';
import { findCode, findLinks, findVerificationLink } from '../extract/index.js';
import { VERSION } from '../server/version.js';

/** What the tools need besides the client. */
export interface McpToolsOptions {
  /** Where the app under test must send mail, `smtp://host:port`; null when unknown. */
  smtpUrl: string | null;
  /** Runs before each tool call; what it throws is that call's tool error (the quota of `/mcp`). */
  beforeCall?: () => Promise<void>;
  /** Ends the waits in progress when aborted (the service shutting down). */
  signal?: AbortSignal;
}

/** Longest wait a tool accepts, seconds. */
export const MAX_WAIT_SECONDS = 120;
/** The API holds a long-poll at most this long, seconds. */
const LONG_POLL_MAX = 30;
/** Messages a timeout names by subject; the rest are counted. */
const ARRIVED_SHOWN = 10;
/** How often a wait reports progress to a client that asked for it (a progress token), ms. */
const PROGRESS_EVERY_MS = 10_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool failure whose text says it all. */
class ToolError extends Error {}

const inboxArg = z.string().min(1).describe('the inbox: its address (alice@mailwright.test) or its id (mbx_…)');

const summaryShape = {
  message_id: z.string(),
  subject: z.string(),
  from: z.string().optional().describe("the sender's address (absent when the mail has none)"),
  received_at: z.string().describe('ISO 8601'),
};
const Summary = z.object(summaryShape);
type Summary = z.input<typeof Summary>;

function summary(m: MessageSummary): Summary {
  return { message_id: m.id, subject: m.subject, from: m.from?.address, received_at: m.receivedAt };
}

const waitShape = {
  inbox: inboxArg,
  subject: z.string().min(1).optional().describe('only a message whose subject contains this (any case)'),
  from: z.string().min(1).optional().describe("only a message whose sender's address or name contains this (any case)"),
  url_includes: z.string().min(1).optional().describe('only a message with a link whose URL contains this; for wait_for_link, the link returned contains it'),
  digits: z.number().int().min(3).max(12).optional().describe('only a message with a one-time code of exactly this many digits'),
  after_message_id: z.string().min(1).optional().describe('only a message that arrived after this one (the message_id of an earlier result): the first such match is returned'),
  timeout_seconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).optional().describe(`how long to wait, 1 to ${MAX_WAIT_SECONDS} seconds (default 30)`),
};
const WaitArgs = z.object(waitShape);
type WaitArgs = z.infer<typeof WaitArgs>;

const WAIT_HOW =
  'Mail already in the inbox counts: without after_message_id the newest match there is returned at once; with it, the first match after that message. ' +
  'Otherwise the wait ends when a match arrives (begin it before or after the app sends). A timeout is an error that lists what did arrive and why it did not count.';

/** A tool's result: the text, and the same as structured content without its empty (null) fields. */
/** The line under a wait's answer: which message it came from, and how to wait for a later one. */
function fromMessage(m: Message): string {
  return `from message ${m.id} "${m.subject}" (${m.receivedAt}); to wait for a later mail, pass after_message_id: "${m.id}"`;
}

function ok<T extends Record<string, unknown>>(text: string, structured: T): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: Object.fromEntries(Object.entries(structured).filter(([, v]) => v !== null && v !== undefined)) };
}

function failure(error: unknown, inbox?: string): CallToolResult {
  let text: string;
  if (error instanceof ToolError) text = error.message;
  else if (error instanceof MailwrightApiError) {
    // The API's own advice names HTTP endpoints; an agent acts through the tools.
    if (error.code === 'mailbox_not_found') text = `mailbox_not_found: there is no inbox ${inbox ?? ''} (it never existed, or it expired); create one with create_inbox`;
    else if (error.code === 'message_not_found') text = `message_not_found: inbox ${inbox ?? ''} has no such message (or it expired); list_messages shows the ones it has`;
    else text = `${error.code}: ${error.detail}${inbox === undefined ? '' : ` (inbox ${inbox})`}`;
  } else if (error instanceof MailwrightError) text = `${error.code}: ${error.message.split('\n')[0]}`;
  else if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') text = `${(error as Error & { code: string }).code}: ${error.message}`;
  else text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

/** What a wait looks for, in words: "a verification link in a message with subject containing "x"". */
function describeMatch(args: WaitArgs, wants: string | null): string {
  const filters = [
    ...(args.subject !== undefined ? [`subject containing "${args.subject}"`] : []),
    ...(args.from !== undefined ? [`sender containing "${args.from}"`] : []),
    ...(args.url_includes !== undefined ? [`a link containing "${args.url_includes}"`] : []),
    ...(args.digits !== undefined && wants === null ? [`a ${args.digits}-digit code`] : []),
  ];
  const after = args.after_message_id !== undefined ? ` after message ${args.after_message_id}` : '';
  const what = wants ?? 'a message';
  if (filters.length === 0) return `${what === 'a message' ? 'any message' : what}${after}`;
  return `${what}${wants === null ? ' with' : ' in a message with'} ${filters.join(', ')}${after}`;
}

/** Why a message does not pass the wait's filters, in a few words; undefined when it passes. */
function mismatch(m: Message, args: WaitArgs): string | undefined {
  if (args.subject !== undefined && !m.subject.toLowerCase().includes(args.subject.toLowerCase())) return 'other subject';
  if (args.from !== undefined) {
    const needle = args.from.toLowerCase();
    if (!m.from || !(m.from.address.toLowerCase().includes(needle) || m.from.name.toLowerCase().includes(needle))) return `from ${m.from?.address ?? 'no sender'}`;
  }
  if (args.url_includes !== undefined && !findLinks(m).some((link) => link.url.includes(args.url_includes!))) return `no link containing "${args.url_includes}"`;
  if (args.digits !== undefined && findCode(m, { digits: args.digits }) === undefined) return `no ${args.digits}-digit code`;
  return undefined;
}

/** "no verification link; its links: …" for a message that passed the filters but held nothing to take. */
function nothingIn(m: Message, wants: string | null): string {
  if (wants === 'a one-time code') return 'no one-time code';
  const links = findLinks(m).map((link) => link.url);
  const shown = links.slice(0, 3).join(' ');
  return links.length === 0 ? 'no link at all' : `no verification link; its links: ${shown}${links.length > 3 ? ` and ${links.length - 3} more` : ''}`;
}

function arrivedText(arrived: string[]): string {
  if (arrived.length === 0) return 'nothing arrived';
  const shown = arrived.slice(-ARRIVED_SHOWN);
  const more = arrived.length > ARRIVED_SHOWN ? ` (the newest ${ARRIVED_SHOWN} of ${arrived.length})` : '';
  return `what arrived${more}: ${shown.join('; ')}`;
}

/**
 * Waits by the API's long-poll for a message of the inbox that matches and in which `pick` finds
 * what it wants. The messages already there count: the newest match, or the first after
 * `after_message_id` when given; else the first match to arrive.
 */
async function waitFor<T>(client: MailwrightClient, args: WaitArgs, signal: AbortSignal, pick: (m: Message) => T | undefined, wants: string | null): Promise<{ message: Message; found: T }> {
  const timeout = args.timeout_seconds ?? 30;
  const deadline = Date.now() + timeout * 1000;
  const seen: string[] = [];
  const consider = (m: Message) => {
    const why = mismatch(m, args);
    const found = why === undefined ? pick(m) : undefined;
    if (found !== undefined) return { message: m, found };
    seen.push(`${JSON.stringify(m.subject || '(no subject)')} (${why ?? nothingIn(m, wants)})`);
    return undefined;
  };

  // What is there already, oldest first, page by page.
  const held: Message[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page: ListEmailsResponse = await client.listEmails({ mailbox: args.inbox, includeBody: true, limit: 100, signal, ...(cursor !== undefined ? { after: cursor } : {}) });
    cursor = page.cursor;
    held.push(...(page.messages as Message[]));
    if (page.messages.length < 100) break;
  }
  if (args.after_message_id !== undefined) {
    const at = held.findIndex((m) => m.id === args.after_message_id);
    if (at < 0) throw new ToolError(`inbox ${args.inbox} has no message ${args.after_message_id} (after_message_id); list its messages with list_messages`);
    for (const m of held.slice(at + 1)) {
      const hit = consider(m);
      if (hit) return hit;
    }
  } else {
    for (const m of [...held].reverse()) {
      const hit = consider(m);
      if (hit) return hit;
    }
    seen.reverse();
  }

  // Then what arrives, each long-poll answering as soon as a message is stored.
  while (Date.now() < deadline) {
    if (signal.aborted) throw new ToolError(`the wait in inbox ${args.inbox} ended: the service is shutting down`);
    const wait = Math.min(LONG_POLL_MAX, Math.max(1, Math.ceil((deadline - Date.now()) / 1000)));
    const page: ListEmailsResponse = await client.listEmails({ mailbox: args.inbox, includeBody: true, limit: 100, wait, signal, ...(cursor !== undefined ? { after: cursor } : {}) });
    cursor = page.cursor;
    for (const m of page.messages as Message[]) {
      const hit = consider(m);
      if (hit) return hit;
    }
  }
  throw new ToolError(`timed out after ${timeout} s waiting in inbox ${args.inbox} for ${describeMatch(args, wants)}; ${arrivedText(seen)}`);
}

/** What the agent is told on connecting: what the tools are for and where mail must go. */
export function instructionsFor(smtpUrl: string | null): string {
  const where = smtpUrl
    ? `The app under test must send its mail over SMTP to ${smtpUrl} (no TLS, no auth needed).`
    : "The app under test must send its mail over SMTP to this service's SMTP port (the service did not say which: set MAILWRIGHT_SMTP_URL for `mailwright mcp` to report it).";
  return [
    'mailwright gives you disposable email inboxes to finish sign-up, verification, password-reset, magic-link and one-time-code flows.',
    where,
    'Steps: create_inbox (a fresh one per flow), type its address into the app, trigger the mail, then wait_for_link (open the link) or wait_for_code (type the code); ' +
      'wait_for_message and read_message show a whole mail. A wait may begin before the mail is sent; it resolves when the mail arrives.',
    'Once the inbox holds mail, a wait without after_message_id answers the newest matching mail already there: for the next mail (a second reset, a new code), ' +
      'pass after_message_id with the message_id of the last answer (every wait names it).',
    'inject_fault makes the SMTP server refuse, delay or drop deliveries to one inbox, to test how the app retries; clear_faults ends that.',
  ].join('\n');
}

/** The MCP server with its tools, not yet connected. */
export function createMcpServer(client: MailwrightClient, options: McpToolsOptions): McpServer {
  const server = new McpServer({ name: 'mailwright', version: VERSION }, { instructions: instructionsFor(options.smtpUrl) });
  const stopped = options.signal ?? new AbortController().signal;

  /**
   * Runs a tool body; any failure becomes a tool error result. While it runs, a client that sent
   * a progress token hears every 10 s that it still does (so a wait can outlast a request timeout
   * that progress resets).
   */
  async function guarded(inbox: string | undefined, extra: Extra, body: (signal: AbortSignal) => Promise<CallToolResult>): Promise<CallToolResult> {
    const token = extra._meta?.progressToken;
    const started = Date.now();
    const ticker = token === undefined ? undefined : setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: seconds, message: `still waiting after ${seconds} s` } }).catch(() => {});
    }, PROGRESS_EVERY_MS);
    try {
      await options.beforeCall?.();
      return await body(AbortSignal.any([extra.signal, stopped]));
    } catch (error) {
      return failure(error, inbox);
    } finally {
      clearInterval(ticker);
    }
  }

  server.registerTool(
    'create_inbox',
    {
      title: 'Create inbox',
      description: 'Create a disposable inbox. Mail sent to its address over SMTP (the smtp field) lands in it until it expires.',
      inputSchema: {
        name: z.string().min(1).max(64).optional().describe('the part before @, e.g. alice (default: random)'),
        expiry_minutes: z.number().int().min(1).max(43_200).optional().describe('how long the inbox lives, in minutes (default 60)'),
      },
      outputSchema: {
        address: z.string(),
        inbox_id: z.string(),
        expires_at: z.string().describe('ISO 8601'),
        smtp: z.string().optional().describe('where the app must send mail, smtp://host:port (absent when unknown)'),
      },
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ name, expiry_minutes }, extra) =>
      guarded(undefined, extra, async (signal) => {
        const mailbox = await client.createMailbox({ expiryTime: (expiry_minutes ?? 60) * 60_000, ...(name !== undefined ? { name } : {}) }, { signal });
        const result = { address: mailbox.email, inbox_id: mailbox.id, expires_at: mailbox.expiresAt, smtp: options.smtpUrl };
        const where = result.smtp ? `; the app must send to it over SMTP at ${result.smtp}` : '';
        return ok(`created inbox ${result.address} (id ${result.inbox_id}), expires ${result.expires_at}${where}`, result);
      }),
  );

  server.registerTool(
    'list_messages',
    {
      title: 'List messages',
      description: 'List the messages of an inbox, newest first (at most 100): message_id, subject, sender, time.',
      inputSchema: { inbox: inboxArg },
      outputSchema: { inbox: z.string(), total: z.number().int(), messages: z.array(Summary) },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ inbox }, extra) =>
      guarded(inbox, extra, async (signal) => {
        const page = await client.getMailbox(inbox, { limit: 100, signal });
        const messages = page.messages.map(summary);
        const lines = messages.map((m) => `${m.received_at}  ${m.message_id}  ${m.from ?? '(no sender)'}  ${m.subject || '(no subject)'}`);
        return ok(messages.length === 0 ? `no messages in ${page.mailbox.email} yet` : lines.join('\n'), { inbox: page.mailbox.email, total: page.total, messages });
      }),
  );

  server.registerTool(
    'read_message',
    {
      title: 'Read message',
      description: 'Read one message of an inbox: its text (default), its HTML, or its raw source (headers included).',
      inputSchema: {
        inbox: inboxArg,
        message_id: z.string().min(1).describe('from list_messages or a wait'),
        format: z.enum(['text', 'html', 'source']).optional().describe('text (default), html or source'),
      },
      outputSchema: { ...summaryShape, format: z.enum(['text', 'html', 'source']), content: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ inbox, message_id, format = 'text' }, extra) =>
      guarded(inbox, extra, async (signal) => {
        const message = await client.getMessage(inbox, message_id, { signal });
        let content: string;
        if (format === 'source') content = (await client.getRawMessage(inbox, message_id, { signal })) as string;
        else content = (format === 'html' ? message.html : message.text) ?? '';
        const shown = content === '' ? `(the message has no ${format === 'html' ? 'HTML' : 'text'} part)` : content;
        return ok(`Subject: ${message.subject}\nFrom: ${message.from?.address ?? ''}\n\n${shown}`, { ...summary(message), format, content });
      }),
  );

  server.registerTool(
    'wait_for_message',
    {
      title: 'Wait for message',
      description: `Wait for a message in the inbox that matches subject, from, url_includes and digits; returns it with its text. ${WAIT_HOW}`,
      inputSchema: waitShape,
      outputSchema: { inbox: z.string(), ...summaryShape, text: z.string().optional().describe('absent when the mail has no text part') },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) =>
      guarded(args.inbox, extra, async (signal) => {
        const { message } = await waitFor(client, args, signal, () => true, null);
        const head = `message ${message.id} "${message.subject}" from ${message.from?.address ?? '(no sender)'}, received ${message.receivedAt}; to wait for a later mail, pass after_message_id: "${message.id}"`;
        return ok(`${head}\n\n${message.text ?? '(no text part; read_message with format html)'}`, { inbox: message.mailbox, ...summary(message), text: message.text });
      }),
  );

  /** A wait whose answer is what `pick` finds in the mail (`link` or `code`), as text and as `key`. */
  function extractingWait(name: string, title: string, description: string, key: 'link' | 'code', wants: string, pick: (m: Message, args: WaitArgs) => string | undefined): void {
    server.registerTool(
      name,
      {
        title,
        description: `${description} ${WAIT_HOW}`,
        inputSchema: waitShape,
        outputSchema: { inbox: z.string(), ...summaryShape, [key]: z.string() },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async (args, extra) =>
        guarded(args.inbox, extra, async (signal) => {
          const { message, found } = await waitFor(client, args, signal, (m) => pick(m, args), wants);
          return ok(`${found}\n\n${fromMessage(message)}`, { inbox: message.mailbox, ...summary(message), [key]: found });
        }),
    );
  }

  extractingWait(
    'wait_for_link',
    'Wait for verification link',
    'Wait for a verification, password-reset, magic-sign-in or invitation link in a message of the inbox; returns the link to open. Unsubscribe, help and logo links are never returned.',
    'link',
    'a verification link',
    (m, args) => findVerificationLink(m, args.url_includes !== undefined ? { urlIncludes: args.url_includes } : undefined),
  );
  extractingWait(
    'wait_for_code',
    'Wait for one-time code',
    'Wait for a one-time code (verification or sign-in code, OTP) in a message of the inbox; returns the code to type. Years, prices, dates and phone numbers are never codes.',
    'code',
    'a one-time code',
    (m, args) => findCode(m, args.digits !== undefined ? { digits: args.digits } : undefined),
  );

  server.registerTool(
    'inject_fault',
    {
      title: 'Inject SMTP fault',
      description:
        'Make the SMTP server misbehave for this inbox only, to test how the app handles it: at "rcpt" (the recipient) or "data" (after the message), ' +
        'reply with an error code, wait delay_ms before the reply, or disconnect. 4xx is temporary (a good sender retries), 5xx permanent, 421 also closes the connection. ' +
        'The rule applies to the next `times` deliveries, or until clear_faults.',
      inputSchema: {
        inbox: inboxArg,
        at: z.enum(['rcpt', 'data']).describe('rcpt: refuse the recipient; data: refuse after the message is sent'),
        code: z.number().int().min(400).max(599).optional().describe('the SMTP reply code, 400-599'),
        enhanced_code: z.string().regex(/^[45]\.\d{1,3}\.\d{1,3}$/).optional().describe('its enhanced status code, e.g. 4.3.0 (default: the class of code, .0.0)'),
        message: z.string().min(1).max(200).optional().describe('the reply text (default: one that names the rule)'),
        delay_ms: z.number().int().min(1).max(60_000).optional().describe('wait this many milliseconds before the reply (or before disconnecting)'),
        disconnect: z.boolean().optional().describe('close the connection without a reply (not with code)'),
        times: z.number().int().min(1).max(1_000_000).optional().describe('apply to this many deliveries, then stop (default: until cleared)'),
        probability: z.number().min(0.001).max(1).optional().describe('the chance it applies to each delivery, 0.001 to 1 (default 1)'),
      },
      outputSchema: {
        inbox: z.string(),
        fault_id: z.string(),
        at: z.enum(['rcpt', 'data']),
        code: z.number().int().optional(),
        enhanced_code: z.string().optional(),
        message: z.string().optional(),
        delay_ms: z.number().int().optional(),
        disconnect: z.boolean(),
        times: z.number().int().optional().describe('absent: until cleared'),
        probability: z.number(),
      },
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ inbox, enhanced_code, delay_ms, ...rest }, extra) =>
      guarded(inbox, extra, async (signal) => {
        const body = Object.fromEntries(Object.entries({ ...rest, enhancedCode: enhanced_code, delay: delay_ms }).filter(([, v]) => v !== undefined)) as FaultRuleBody;
        const added = await client.addFault(inbox, body, { signal });
        const result = {
          inbox,
          fault_id: added.id,
          at: added.at,
          code: added.code ?? null,
          enhanced_code: added.enhancedCode ?? null,
          message: added.message ?? null,
          delay_ms: added.delay ?? null,
          disconnect: added.disconnect ?? false,
          times: added.times ?? null,
          probability: added.probability,
        };
        const what = [
          result.code !== null ? `reply ${result.code}${result.enhanced_code ? ` ${result.enhanced_code}` : ''}` : '',
          result.delay_ms !== null ? `wait ${result.delay_ms} ms` : '',
          result.disconnect ? 'disconnect' : '',
        ].filter(Boolean).join(', ');
        const chance = result.probability < 1 ? `, with probability ${result.probability}` : '';
        return ok(`fault ${result.fault_id} on ${inbox} at ${result.at}: ${what}${chance}, ${result.times === null ? 'until clear_faults' : result.times === 1 ? 'for the next delivery' : `for the next ${result.times} deliveries`}`, result);
      }),
  );

  server.registerTool(
    'clear_faults',
    {
      title: 'Clear SMTP faults',
      description: 'Remove every fault rule of the inbox: deliveries to it are accepted normally again.',
      inputSchema: { inbox: inboxArg },
      outputSchema: { inbox: z.string(), cleared: z.boolean() },
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
    },
    async ({ inbox }, extra) =>
      guarded(inbox, extra, async (signal) => {
        await client.clearFaults(inbox, { signal });
        return ok(`cleared the fault rules of ${inbox}`, { inbox, cleared: true });
      }),
  );

  return server;
}

/**
 * Serves the tools on stdin/stdout until the client closes the stream; the caller owns
 * `client` (and the service it talks to).
 */
export async function serveStdio(client: MailwrightClient, options: McpToolsOptions): Promise<void> {
  const server = createMcpServer(client, options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close().catch(() => {});
}
