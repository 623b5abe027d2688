// Owns the fixture's coded errors (FIXTURE_ERROR_CODES: a wait that timed out, a message that
// should not have arrived, a missing `await`, an unusable option or argument, a webhook the
// service cannot reach, a mailbox gone mid-wait, …) and the wording of a timed-out wait.
// Each extends the client's MailwrightError, so callers match on `code`.
import { MailwrightError } from '../client/index.js';

/** An error in one line, for logs and messages: `code: first line` for coded errors. */
export function describeError(error: unknown): string {
  if (error instanceof MailwrightError) return `${error.code}: ${error.message.split('\n')[0]}`;
  return error instanceof Error ? error.message : String(error);
}

/** Codes of errors raised by the Playwright fixture. */
export const FIXTURE_ERROR_CODES = {
  /** A wait (`waitForMessage`, `waitForCode`, `toReceive`, …) ran out of time. */
  waitTimeout: 'MW_ERR_WAIT_TIMEOUT',
  /** `expectNoMessage` (or `expect(inbox).not.toReceive`) saw a matching message. */
  unexpectedMessage: 'MW_ERR_UNEXPECTED_MESSAGE',
  /** A fixture option is missing or unusable. */
  invalidOption: 'MW_ERR_FIXTURE_OPTION',
  /** A `match` object has a key that is not a match field. */
  invalidMatch: 'MW_ERR_INVALID_MATCH',
  /** `delivery: 'webhook'` was asked for but the service cannot deliver to the receiver. */
  webhookUnreachable: 'MW_ERR_WEBHOOK_UNREACHABLE',
  /** The mailbox expired (or vanished) while a wait was pending. */
  mailboxGone: 'MW_ERR_MAILBOX_GONE',
  /** The worker's hub was closed while a wait was pending, or used after closing. */
  hubClosed: 'MW_ERR_HUB_CLOSED',
  /** A wait or matcher was still pending when the test body ended: a missing `await`. */
  notAwaited: 'MW_ERR_NOT_AWAITED',
  /** A call got an argument it cannot use (a timeout that is not a number, a count below 0, not an inbox). */
  invalidArgument: 'MW_ERR_INVALID_ARGUMENT',
  /** `mailwrightServer()` cannot find the mailwright CLI to start (the package is not built). */
  cliNotFound: 'MW_ERR_CLI_NOT_FOUND',
} as const;

/** One of {@link FIXTURE_ERROR_CODES}. */
export type FixtureErrorCode = (typeof FIXTURE_ERROR_CODES)[keyof typeof FIXTURE_ERROR_CODES];

/** Base class of the fixture's own errors. `code` is one of {@link FIXTURE_ERROR_CODES}. */
export class MailwrightFixtureError extends MailwrightError {
  declare readonly code: FixtureErrorCode;

  constructor(code: FixtureErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'MailwrightFixtureError';
  }
}

/** What a timed-out wait knows; the error message is built from it. */
export interface WaitTimeoutDetails {
  /** The inbox address waited on. */
  address: string;
  /** The match, described readably (`subject ~ "Verify"`), or `any message`. */
  match: string;
  /** What the wait was for: `message`, `verification link` or `code`. */
  target: 'message' | 'verification link' | 'code';
  /** The timeout in ms. */
  timeout: number;
  /** `webhook`, `poll` or `webhook+poll fallback`. */
  delivery: string;
  /** Messages seen in the window, oldest first. */
  arrived: ReadonlyArray<{
    subject: string;
    from: string;
    receivedAt: Date;
    matched: boolean;
    /**
     * For a matching message without a link or code: the extraction verdict, then the best
     * candidates it turned down with their reasons (`https://shop.test/reset?k=9 — rejected: …`).
     */
    why?: readonly string[];
  }>;
  /** Start of the window the wait looked at. */
  since?: Date;
  /** When the wait started. */
  startedAt: Date;
  /** The last error of the delivery machinery, when there was one (e.g. a failing poll). */
  lastError?: string;
  /** The messages could not be listed from the API at timeout; the list holds what the hub saw. */
  listIncomplete?: string;
  /** Where the spec called the wait: `signup.spec.ts:12`. */
  site?: string;
  /** The mailbox's page in the service's web UI, when the inbox outlives a failed test. */
  webUI?: string;
  /**
   * Recipients the service's SMTP refused in the wait's window, oldest first, as far as the
   * key may see them (an admin key: all; others: their own expired mailboxes).
   */
  refused?: ReadonlyArray<{
    address: string;
    reason: 'unserved_domain' | 'unknown_mailbox' | 'expired_mailbox';
    /** The `550 …` reply the sender got. */
    reply: string;
    /** Envelope sender, when there was one. */
    from: string | null;
    at: Date;
  }>;
  /**
   * This inbox's fault rules that acted on deliveries to it (`hits` > 0), oldest first: a
   * rule with a reply `refused` them, one that closes the connection `dropped` them, a bare
   * delay `delayed` them.
   */
  faults?: ReadonlyArray<{
    id: string;
    /** The rule in words: `451 4.3.0 at rcpt`, `delay 2000 ms at data`, `disconnect at data`. */
    rule: string;
    effect: 'refused' | 'delayed' | 'dropped';
    /** Deliveries it applied to. */
    hits: number;
    /** How many it applies to in all; absent for a rule that lasts until cleared. */
    times?: number;
  }>;
}

/**
 * A wait ran out of time. The message names the address, the match, the timeout, the
 * delivery mode, and lists what did arrive (subject, sender, time) or says nothing did.
 *
 * @example
 * ```ts
 * try {
 *   await inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 5_000 });
 * } catch (error) {
 *   if (error instanceof MailwrightTimeoutError) console.log(error.details.arrived);
 *   throw error;
 * }
 * ```
 */
export class MailwrightTimeoutError extends MailwrightFixtureError {
  /** The facts the message was built from. */
  readonly details: WaitTimeoutDetails;

  constructor(details: WaitTimeoutDetails) {
    super(FIXTURE_ERROR_CODES.waitTimeout, formatTimeoutMessage(details));
    this.name = 'MailwrightTimeoutError';
    this.details = details;
  }
}

/** `expectNoMessage` saw a message it should not have. */
export class MailwrightUnexpectedMessageError extends MailwrightFixtureError {
  constructor(message: string) {
    super(FIXTURE_ERROR_CODES.unexpectedMessage, message);
    this.name = 'MailwrightUnexpectedMessageError';
  }
}

/** A duration for people: `850 ms`, `5 s`, `2.5 s`, `2 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Number((ms / 1000).toFixed(1))} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}

/** `HH:MM:SS.mmm` in local time: enough to line up with the test's own log. */
export function formatClock(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function what(target: WaitTimeoutDetails['target']): string {
  return target === 'message' ? 'no message' : `no ${target}`;
}

/** The text of a {@link MailwrightTimeoutError}; exported for tests and reporters. */
export function formatTimeoutMessage(d: WaitTimeoutDetails): string {
  const lines: string[] = [];
  const matchText = d.match === 'any message' ? '' : ` matching ${d.match}`;
  lines.push(`${what(d.target)} arrived at ${d.address}${matchText} within ${formatDuration(d.timeout)} (delivery: ${d.delivery}).${d.site ? ` Waited at ${d.site}.` : ''}`);
  const window = d.since ? `since ${formatClock(d.since)}` : 'since the inbox was created';
  const matched = d.arrived.filter((m) => m.matched);
  if (d.arrived.length === 0) {
    lines.push(`Nothing arrived at ${d.address} ${window}.`);
  } else {
    let summary = `${d.arrived.length} message${d.arrived.length === 1 ? '' : 's'} arrived ${window}`;
    if (d.target === 'message') summary += matched.length === 0 ? ', none matching' : '';
    else if (matched.length === 0) summary += `, none matching`;
    else summary += `; ${matched.length} matched but no ${d.target} was found in ${matched.length === 1 ? 'it' : 'them'}`;
    lines.push(`${summary}:`);
    const shown = d.arrived.slice(0, 10);
    shown.forEach((m, i) => {
      const mark = d.target !== 'message' && m.matched ? ` [matched, no ${d.target}]` : '';
      lines.push(`  ${i + 1}. "${m.subject}" from ${m.from || '(no sender)'} at ${formatClock(m.receivedAt)}${mark}`);
      const [verdict, ...candidates] = m.why ?? [];
      if (verdict) lines.push(`     why: ${verdict}`);
      for (const candidate of candidates) lines.push(`     - ${candidate}`);
    });
    if (d.arrived.length > shown.length) lines.push(`  … and ${d.arrived.length - shown.length} more`);
  }
  if (d.refused && d.refused.length > 0) {
    lines.push(`The service refused mail in this window: ${refusalSummary(d.refused[d.refused.length - 1]!)}.`);
    const shown = d.refused.slice(-5);
    for (const r of shown) lines.push(`  - ${r.address} from ${r.from || '(no sender)'} at ${formatClock(r.at)}: ${r.reply}`);
    if (d.refused.length > shown.length) lines.push(`  … and ${d.refused.length - shown.length} earlier`);
  }
  for (const f of d.faults ?? []) lines.push(faultLine(f));
  if (d.listIncomplete) lines.push(`(The list is what this worker saw; listing the mailbox failed: ${d.listIncomplete}.)`);
  if (d.lastError) lines.push(`Last delivery error: ${d.lastError}.`);
  lines.push(`Hint: ${hint(d, matched.length)}`);
  if (d.webUI) lines.push(`See it in the web UI: ${d.webUI}`);
  return lines.join('\n');
}

/**
 * A fault rule that acted, as a line of the timeout message:
 * `2 deliveries to this inbox were refused by its fault rule 451 4.3.0 at rcpt (hits 2 of 3); clear it with inbox.clearFaults().`
 */
function faultLine(f: NonNullable<WaitTimeoutDetails['faults']>[number]): string {
  const deliveries = f.hits === 1 ? '1 delivery to this inbox was' : `${f.hits} deliveries to this inbox were`;
  const count = f.times === undefined ? `hits ${f.hits}, until cleared` : `hits ${f.hits} of ${f.times}`;
  return `${deliveries} ${f.effect} by its fault rule ${f.rule} (${count}); clear it with inbox.clearFaults().`;
}

/** One refusal as the cause it probably is. */
function refusalSummary(r: NonNullable<WaitTimeoutDetails['refused']>[number]): string {
  switch (r.reason) {
    case 'unserved_domain': return `your app sent to ${r.address}, which this service does not serve`;
    case 'expired_mailbox': return `your app sent to ${r.address} after that mailbox had expired`;
    case 'unknown_mailbox': return `your app sent to ${r.address}, which is not a mailbox here`;
  }
}

function hint(d: WaitTimeoutDetails, matched: number): string {
  if (d.arrived.length === 0 && d.refused && d.refused.length > 0) {
    return `make the app send to exactly ${d.address}: the address it used was refused (above), so the message never reached this inbox.`;
  }
  if (d.arrived.length === 0) {
    return `check that the app under test sends to exactly ${d.address} through the mailwright SMTP server, and that the step that sends it ran; raise { timeout } if the app is slow.`;
  }
  if (d.target !== 'message' && matched > 0) {
    return d.target === 'code'
      ? 'read the reasons above, or open the message in the report: codes are 4-8 digits or short alphanumerics next to a word like "code"; pass { digits: 6 } or { pattern: /[A-Z0-9]{8}/ } when you know the code\'s shape.'
      : 'read the reasons above, or open the message in the report (or use waitForMessage() and read message.links): links labelled unsubscribe, privacy, help or view-in-browser are never the verification link; pass { urlIncludes: \'/your-path\' } when you know the link\'s URL.';
  }
  return 'compare the match with the subjects and senders above (strings match case-insensitive substrings, `to` matches a recipient address exactly), or pass `since` if the message arrived earlier.';
}

/** What {@link MailwrightNotAwaitedError} reports: one entry per forgotten call. */
export interface ForgottenCall {
  /** `inbox.waitForMessage()`, `expect(inbox).toReceive()`. */
  call: string;
  /** `signup.spec.ts:12`, when known. */
  where?: string;
  /** The stack frame of the call, when known. */
  frame?: string;
}

/**
 * A test ended while a wait or matcher it started was still pending: its `await` is missing,
 * so it checked nothing. The test fails instead of passing silently.
 */
export class MailwrightNotAwaitedError extends MailwrightFixtureError {
  /** The calls that were not awaited. */
  readonly calls: readonly ForgottenCall[];

  constructor(calls: readonly ForgottenCall[]) {
    const named = calls.map((c) => `\`${c.call}\` was not awaited${c.where ? ` (${c.where})` : ''}`);
    super(
      FIXTURE_ERROR_CODES.notAwaited,
      `${named.join('; ')}. The test ended while ${calls.length === 1 ? 'it was' : 'they were'} still waiting, so ${calls.length === 1 ? 'it' : 'they'} checked nothing. ` +
        `Put \`await\` before ${calls.length === 1 ? 'it' : 'each'}: \`await ${calls[0]?.call.replace(/\(\)$/, '(…)') ?? 'inbox.waitForMessage(…)'}\`.`,
    );
    this.name = 'MailwrightNotAwaitedError';
    this.calls = calls;
    const frames = calls.map((c) => c.frame).filter((f): f is string => f !== undefined);
    if (frames.length > 0) this.stack = `${this.name}: ${this.message}\n${frames.map((f) => `    ${f}`).join('\n')}`;
  }
}
