// Owns SMTP ingestion: accepts mail for live mailboxes only (550 5.1.1 otherwise, each refusal
// with its own text; the first few of a connection kept in the store for the refusals
// endpoint), enforces SIZE (552 5.3.4), stores one copy per live mailbox, with the webhook
// deliveries delivery routing names for it, answers 250 only after the commit, then emits
// `message.stored` once per copy; long-polls and the webhook dispatcher listen. It bounds
// abuse as postfix does by default: a cap on clients served at once (421), on RCPTs per
// message (452 4.5.3) and on refused recipients per connection (421 4.7.0, then closed).
// With the catch-all (local development, `--catch-all`), a recipient at a served domain that
// has no mailbox gets one on this first delivery, owned by the catch-all owner within its role's
// limits (452 4.2.2 at its live-mailbox limit); an expired mailbox keeps its 550.
import type { AddressInfo } from 'node:net';
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { PromptSMTPServer, withEnhancedCode } from './prompt-greeting.js';
import type { Logger } from 'pino';
import { EXPIRY_OPTIONS } from '../../protocol/index.js';
import { createMailboxFor } from '../actions.js';
import { ApiError } from '../api/problem.js';
import type { ServiceContext } from '../context.js';
import { planCopies } from '../delivery/routing.js';
import { describeFault, faultToApply } from '../faults.js';
import type { FaultRecord, RecipientMailbox, RefusalRecord } from '../store/store.js';
import { mailboxAddressOf } from './address.js';
import { parseMessage, parseSummary } from '../mime/parse.js';

/**
 * Refused recipients one connection may collect, across its transactions; the next refusal is
 * answered `421 4.7.0` and the connection closed (postfix's `smtpd_hard_error_limit`).
 */
const REFUSED_RECIPIENTS_PER_SESSION = 20;
/**
 * RCPT commands one transaction may carry, accepted and refused alike (RFC 5321 §4.5.3.1.8's
 * minimum); each one more is answered `452 4.5.3` without a lookup. MAIL FROM starts a new count.
 */
const RECIPIENTS_PER_MESSAGE = 100;
/**
 * Refusals of one connection kept in the store for the refusals endpoint and timed-out waits:
 * enough to name an app's typo, too few for one client to flood the store or the pages that
 * an expired mailbox's owner and the admins read. The rest are answered alike, and only logged at debug.
 */
const RECORDED_REFUSALS_PER_SESSION = 5;

/** An SMTP reply error: smtp-server sends `responseCode` and the message (with `enhancedCode` in place of its default one). */
function smtpError(responseCode: number, message: string, enhancedCode?: Parameters<typeof withEnhancedCode>[0]): Error & { responseCode: number } {
  return Object.assign(new Error(enhancedCode ? withEnhancedCode(enhancedCode, message) : message), { responseCode });
}

/**
 * How long a mailbox the catch-all creates lives: the API's standard first choice (an hour, what
 * the web UI's form picks), or the owner's role maximum when that is shorter.
 */
const CATCH_ALL_EXPIRY_MS = EXPIRY_OPTIONS[0];

/** Who owns the mailboxes the catch-all creates (resolved at start: start.ts). */
export interface CatchAllOwner {
  accountId: string;
  email: string;
}

/** The catch-all could not make a mailbox of this address: refused like an unknown one, with this text. */
class CatchAllRefused extends Error {
  constructor(readonly reply: string) {
    super(reply);
  }
}

/** A fault rule acted instead of the normal answer: its reply, or none (the connection was closed). */
class FaultActed extends Error {
  constructor(readonly reply: (Error & { responseCode: number }) | null) {
    super('a fault rule acted');
  }
}

interface SessionState {
  /** Mailboxes accepted at RCPT time, by id. */
  mailboxes: Map<string, RecipientMailbox>;
  /** RCPT commands in this transaction, accepted or refused. */
  recipients: number;
  /** Recipients refused on this connection, in all its transactions. */
  refused: number;
}

/** The connection's state: smtp-server keeps one session object per connection. */
function stateOf(session: SMTPServerSession): SessionState {
  const holder = session as SMTPServerSession & { mailwright?: SessionState };
  holder.mailwright ??= { mailboxes: new Map(), recipients: 0, refused: 0 };
  return holder.mailwright;
}

interface StartedSmtp {
  port: number;
  close(): Promise<void>;
}

/**
 * Reads the DATA stream into one buffer, stopping to keep at most `limit` + 1 bytes. Events,
 * not `for await`: the async iterator's machinery costs a lone message more than its bytes do.
 * The buffer is a memory block of its own, not a slice of Node's shared pool (what
 * Buffer.concat gives below 4 KiB): a pool's 8 KiB block lives as long as any slice of it, so
 * sources held while they wait for their commit would keep whole blocks alive between
 * collections.
 */
function readStream(stream: SMTPServerDataStream, limit: number): Promise<{ raw: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let kept = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return;
      chunks.push(chunk);
      kept = size;
    });
    stream.once('end', () => {
      const raw = Buffer.allocUnsafeSlow(kept);
      let at = 0;
      for (const chunk of chunks) at += chunk.copy(raw, at);
      resolve({ raw, tooLarge: stream.sizeExceeded || size > limit });
    });
    stream.once('error', reject);
  });
}

/**
 * Starts the SMTP listener. `catchAllOwner`: with `--catch-all`, the account that owns the
 * mailboxes it creates; null (the default) accepts mail for existing mailboxes only.
 */
export async function startSmtp(ctx: ServiceContext, catchAllOwner: CatchAllOwner | null = null): Promise<StartedSmtp> {
  const { store, clock, bus, config } = ctx;
  const log: Logger = ctx.log.child({ subsystem: 'smtp' });

  /**
   * The catch-all's mailbox for `address` (a served domain's, which had none): created for the
   * owner with its role's limits, or, when another delivery created it at the same moment, that
   * one. Refuses an address no mailbox can have (CatchAllRefused), answers 452 4.2.2 at the
   * owner's live-mailbox limit and 451 when the owner is gone.
   */
  async function catchAllMailbox(owner: CatchAllOwner, address: string, recipient: string): Promise<RecipientMailbox | null> {
    const account = await store.getAccount(owner.accountId);
    if (!account) {
      throw smtpError(451, `<${recipient}>: the catch-all owner ${owner.email} no longer exists; restart the service with --catch-all-owner naming an existing account`, '4.3.0');
    }
    const limits = config.roles[account.role] ?? config.roles.civilian!;
    const at = address.lastIndexOf('@');
    try {
      const created = await createMailboxFor(ctx, account, limits, {
        name: address.slice(0, at),
        domain: address.slice(at + 1),
        expiryTime: Math.min(CATCH_ALL_EXPIRY_MS, limits.maxExpiryTime),
      });
      log.info({ address: created.address, mailboxId: created.id, owner: account.email, expiresAt: new Date(created.expiresAt).toISOString() }, 'catch-all created a mailbox');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Another delivery to the same new address created it first: it is there to look up.
      if (error.code === 'address_taken') return store.findMailboxByAddress(address, clock.now());
      if (error.code === 'mailbox_limit') {
        log.warn({ address, owner: account.email, limit: limits.maxMailboxes }, 'catch-all owner at its live-mailbox limit');
        throw smtpError(
          452,
          `<${recipient}>: the catch-all owner ${account.email} has reached its limit of ${limits.maxMailboxes} live mailboxes (role ${account.role}); ` +
            'expire mailboxes it is done with (POST /api/emails/{id}/expire), move the account to a role with a higher limit, or start with another --catch-all-owner',
          '4.2.2',
        );
      }
      if (error.field === 'name') {
        throw new CatchAllRefused(`<${recipient}>: no such mailbox, and the catch-all cannot create one: a mailbox name is 1-64 of a-z 0-9 . _ -, starting and ending with a letter or digit; send to such an address`);
      }
      log.warn({ address, owner: account.email, err: error }, 'catch-all could not create a mailbox');
      throw smtpError(451, `<${recipient}>: the catch-all could not create this mailbox (${error.detail})`, '4.3.0');
    }
    return store.findMailboxByAddress(address, clock.now());
  }

  /**
   * What a fault rule does before SMTP answers for `subject` (a recipient, or a transaction's
   * recipients): wait its delay (on a timer: other sessions go on), then close without a reply,
   * or fail with its reply (421 also closes), or — a delay alone — resolve, and the answer is the
   * normal one. A message refused or dropped here is never stored.
   */
  async function act(fault: FaultRecord, session: SMTPServerSession, subject: string): Promise<void> {
    log.debug({ fault: fault.id, rule: describeFault(fault), subject }, 'fault rule applied');
    if (fault.delayMs !== null) await new Promise((resolve) => setTimeout(resolve, fault.delayMs!).unref());
    if (fault.disconnect) {
      server.drop(session.id);
      throw new FaultActed(null);
    }
    if (fault.code === null) return;
    const text = fault.message ?? `<${subject}>: refused by this mailbox's fault rule ${describeFault(fault)}; clear it with DELETE /api/emails/${fault.mailboxId}/faults`;
    throw new FaultActed(smtpError(fault.code, text, fault.enhancedCode as Parameters<typeof withEnhancedCode>[0]));
  }

  const server = new PromptSMTPServer({
    name: 'mailwright',
    banner: 'mailwright disposable mail',
    size: config.maxMessageSize,
    // Answer 552 5.3.4 for an oversized DATA (the size option alone only advertises).
    ...({ rejectOversized: true } as object),
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    hideENHANCEDSTATUSCODES: false,
    hide8BITMIME: false,
    hidePIPELINING: false,
    hideSMTPUTF8: false,
    logger: false,
    // One more is answered `421` and closed (see prompt-greeting.ts); those served go on.
    maxClients: config.smtpMaxClients,
    // On close: stop accepting, let open transactions finish for up to 5 s, then 421.
    closeTimeout: 5_000,
    // Any credentials are accepted: apps under test often insist on authenticating.
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onMailFrom(_address, session, callback) {
      const state = stateOf(session);
      state.mailboxes.clear();
      state.recipients = 0;
      callback();
    },
    onRcptTo(address, session, callback) {
      const recipient = address.address;
      const state = stateOf(session);
      if (++state.recipients > RECIPIENTS_PER_MESSAGE) {
        return callback(smtpError(452, `Too many recipients: at most ${RECIPIENTS_PER_MESSAGE} per message; send to the rest in another message`, '4.5.3'));
      }
      const refuse = (reason: RefusalRecord['reason'], reply: string, accountId: string | null = null) => {
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
        if (++state.refused > REFUSED_RECIPIENTS_PER_SESSION) {
          log.info({ remoteAddress: session.remoteAddress, refused: REFUSED_RECIPIENTS_PER_SESSION, mailFrom }, 'closing a connection with too many refused recipients');
          // smtp-server closes the connection after sending a 421.
          return callback(smtpError(421, `too many refused recipients (${REFUSED_RECIPIENTS_PER_SESSION}) in this session; closing. Create the mailboxes first, or check the addresses`, '4.7.0'));
        }
        if (state.refused <= RECORDED_REFUSALS_PER_SESSION) {
          // Kept so a timed-out wait can say what was refused; a failure to keep it must not change the answer.
          store.recordRefusal({ at: clock.now(), address: recipient, reason, reply: `550 5.1.1 ${reply}`, mailFrom, accountId })
            .catch((error: unknown) => log.warn({ err: error }, 'recording a refusal failed'));
        }
        log.debug({ recipient, reason, mailFrom }, 'recipient refused');
        callback(smtpError(550, reply));
      };
      const target = mailboxAddressOf(recipient);
      if (!target) return refuse('unknown_mailbox', `<${recipient}>: not a mailbox address; mailboxes look like name@${config.domains[0]}`);
      const domain = target.slice(target.lastIndexOf('@') + 1);
      if (!config.domains.includes(domain)) {
        return refuse('unserved_domain', `<${recipient}>: this service does not serve the domain ${domain} (it serves ${config.domains.join(', ')}); check the address the mail was sent to`);
      }
      // With the catch-all, an address with no mailbox (none yet, or expired and swept) gets one now.
      const lookup = store.findMailboxByAddress(target, clock.now())
        .then((found) => (found || !catchAllOwner ? found : catchAllMailbox(catchAllOwner, target, recipient)));
      lookup.then((mailbox) => {
        if (!mailbox) return refuse('unknown_mailbox', `<${recipient}>: no such mailbox here; create it first with POST /api/emails/generate`);
        if (mailbox.expiresAt <= clock.now()) {
          return refuse('expired_mailbox', `<${recipient}>: this mailbox expired at ${new Date(mailbox.expiresAt).toISOString()}; create a new one, or a longer expiryTime`, mailbox.accountId);
        }
        const accept = () => {
          stateOf(session).mailboxes.set(mailbox.id, mailbox);
          callback();
        };
        // A mailbox without fault rules goes on at once; with them, the first that applies acts.
        if (mailbox.faults.length === 0) return accept();
        return faultToApply(ctx, mailbox.faults, 'rcpt').then((fault) => (fault ? act(fault, session, recipient).then(accept) : accept()));
      }).catch((error: unknown) => {
        if (error instanceof FaultActed) return error.reply ? callback(error.reply) : undefined;
        if (error instanceof CatchAllRefused) return refuse('unknown_mailbox', error.reply);
        if (typeof (error as { responseCode?: unknown }).responseCode === 'number') return callback(error as Error);
        log.error({ err: error }, 'recipient lookup failed');
        callback(smtpError(451, 'temporary failure looking up the recipient; try again'));
      });
    },
    onData(stream, session, callback) {
      const state = stateOf(session);
      readStream(stream, config.maxMessageSize)
        .then(async ({ raw, tooLarge }) => {
          if (tooLarge) {
            // rejectOversized makes smtp-server answer `552 5.3.4` itself, whatever we pass here.
            throw smtpError(552, `message exceeds the ${config.maxMessageSize} byte limit (SIZE); send a smaller message`);
          }
          // SMTP has one reply per DATA: the first rule of any recipient's that applies acts for all.
          const rules = [...state.mailboxes.values()].flatMap((m) => m.faults).filter((f) => f.stage === 'data');
          const fault = rules.length > 0 ? await faultToApply(ctx, rules, 'data') : null;
          if (fault) await act(fault, session, [...state.mailboxes.values()].map((m) => m.address).join(', '));
          const now = clock.now();
          const plan = planCopies([...state.mailboxes.values()]);
          // The summary is stored beside the source; the body is read from the source when asked
          // for, but for a message owed to a webhook: read whole here, once, its deliveries go out
          // as soon as it commits, built from this read rather than from the store.
          const whole = plan.some((copy) => copy.webhookIds.length > 0) ? await parseMessage(raw) : undefined;
          const { from, to, cc, subject } = whole ?? await parseSummary(raw);
          const body = whole && { headers: whole.headers, text: whole.text, html: whole.html, attachments: whole.attachments };
          // Waiters and webhooks hear of the message once it is committed (the store's readers
          // see it from then on), while the log is synced; the sender's 250 waits for the sync.
          const copies = await store.insertMessage(plan, { from, to, cc, subject, raw }, now, (committed) => {
            try {
              for (const copy of committed) bus.emit('message.stored', body ? { ...copy.message, body } : copy.message, copy.deliveries, false);
            } catch (error) {
              log.error({ err: error }, 'a message.stored listener failed');
            }
          });
          if (copies.length === 0) throw smtpError(550, 'every recipient mailbox expired before the message was stored');
          log.debug({ messageIds: copies.map((c) => c.message.id), size: copies[0]!.message.size }, 'message stored');
          return copies;
        })
        .then((copies) => callback(null, `stored ${copies.map((c) => c.message.id).join(' ')}`))
        .catch((error: Error & { responseCode?: number }) => {
          if (error instanceof FaultActed) {
            if (error.reply) callback(error.reply);
            return;
          }
          if (!error.responseCode) {
            log.error({ err: error }, 'storing a message failed');
            error = smtpError(451, 'the message could not be stored; try again');
          }
          callback(error);
        });
    },
  }, config.greetingDelayMs);
  server.on('error', (error) => log.error({ err: error }, 'smtp server error'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.smtpPort, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    port,
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
