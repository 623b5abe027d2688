// Owns the wire format: TypeBox schemas for every API body, query and response, and the
// webhook payload. Server routes, the typed client and the fixture all import from here.
import { Type, type Static } from 'typebox';
import { ApiErrorCode } from './errors.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** ISO-8601 timestamp string in UTC. */
const Timestamp = Type.String({ format: 'date-time' });

const problemFields = {
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  field: Type.Optional(Type.String()),
};

/** An RFC 7807 problem document as this service sends it; `code` is one of `API_ERRORS`. */
export const Problem = Type.Object(
  { ...problemFields, code: ApiErrorCode },
  { title: 'Problem', description: 'application/problem+json error body' },
);
export type Problem = Static<typeof Problem>;

/**
 * A problem document as a client reads it: the same fields, but `code` may be one a newer
 * service added (the client passes it on rather than hiding the error behind `http_<status>`).
 */
export const AnyProblem = Type.Object({ ...problemFields, code: Type.String() }, { title: 'AnyProblem' });
export type AnyProblem = Static<typeof AnyProblem>;

/** A mail address with its display name ('' when none). */
export const Address = Type.Object({ address: Type.String(), name: Type.String() }, { title: 'Address' });
export type Address = Static<typeof Address>;

/** A disposable mailbox. */
export const Mailbox = Type.Object(
  {
    id: Type.String(),
    email: Type.String({ description: 'The address, lower-case.' }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    webhookId: Nullable(Type.String()),
  },
  { title: 'Mailbox' },
);
export type Mailbox = Static<typeof Mailbox>;

/** Metadata of one attachment (content is only in the raw source). */
export const Attachment = Type.Object(
  {
    filename: Nullable(Type.String()),
    contentType: Type.String(),
    size: Type.Integer(),
    contentId: Nullable(Type.String()),
  },
  { title: 'Attachment' },
);
export type Attachment = Static<typeof Attachment>;

/** Header name (lower-case) to value; a header that occurs more than once is an array. */
export const Headers = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]));
export type Headers = Static<typeof Headers>;

const messageSummaryFields = {
  id: Type.String(),
  mailboxId: Type.String(),
  mailbox: Type.String({ description: 'Address of the mailbox that received the message.' }),
  from: Nullable(Address),
  to: Type.Array(Address),
  cc: Type.Array(Address),
  subject: Type.String(),
  receivedAt: Timestamp,
  size: Type.Integer({ description: 'Size of the raw source in bytes.' }),
};

/** A message without its bodies and headers: what listings return. */
export const MessageSummary = Type.Object(messageSummaryFields, { title: 'MessageSummary' });
export type MessageSummary = Static<typeof MessageSummary>;

/** A whole message as `GET /api/emails/{mailboxId}/{messageId}` returns it. */
export const Message = Type.Object(
  {
    ...messageSummaryFields,
    headers: Headers,
    text: Nullable(Type.String()),
    html: Nullable(Type.String()),
    attachments: Type.Array(Attachment),
  },
  { title: 'Message' },
);
export type Message = Static<typeof Message>;

// ---- email endpoints -------------------------------------------------------------------

export const GenerateMailboxBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'Custom local part; random when absent.' })),
    domain: Type.Optional(Type.String()),
    expiryTime: Type.Integer({ description: 'Lifetime in milliseconds (60000 up to the role maximum).' }),
    webhookId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type GenerateMailboxBody = Static<typeof GenerateMailboxBody>;

export const ListEmailsQuery = Type.Object({
  mailbox: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'Mailbox id or address; repeat for a batch.' })),
  after: Type.Optional(Type.String({ description: 'Opaque cursor from the previous answer.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  wait: Type.Optional(Type.Number({ minimum: 0, maximum: 30, description: 'Seconds to hold the request until a message is there (long-poll).' })),
  include: Type.Optional(Type.String({ description: '`body` to return whole messages.' })),
});
export type ListEmailsQuery = Static<typeof ListEmailsQuery>;

const Cursor = Type.String({ description: 'Pass as `after` to get only newer messages.' });

/** `GET /api/emails` answer: whole messages with `include=body`, summaries without. */
export const ListEmailsResponse = Type.Object({
  messages: Type.Array(Type.Union([Message, MessageSummary])),
  cursor: Cursor,
});
export type ListEmailsResponse = Static<typeof ListEmailsResponse>;

/** `GET /api/emails?include=body` answer: whole messages. */
export const ListEmailsWithBodyResponse = Type.Object({ messages: Type.Array(Message), cursor: Cursor });
export type ListEmailsWithBodyResponse = Static<typeof ListEmailsWithBodyResponse>;

/** `GET /api/emails` answer without `include=body`: summaries. */
export const ListEmailsSummaryResponse = Type.Object({ messages: Type.Array(MessageSummary), cursor: Cursor });
export type ListEmailsSummaryResponse = Static<typeof ListEmailsSummaryResponse>;

export const MailboxParams = Type.Object({ mailboxId: Type.String() });
export const MessageParams = Type.Object({ mailboxId: Type.String(), messageId: Type.String() });

export const MailboxMessagesQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
export type MailboxMessagesQuery = Static<typeof MailboxMessagesQuery>;

export const MailboxMessagesResponse = Type.Object({
  mailbox: Mailbox,
  messages: Type.Array(MessageSummary),
  nextCursor: Nullable(Type.String()),
  total: Type.Integer(),
});
export type MailboxMessagesResponse = Static<typeof MailboxMessagesResponse>;

export const MessageResponse = Type.Object({ message: Message });
export type MessageResponse = Static<typeof MessageResponse>;

/**
 * The mail clients an HTML check covers when none are given: the families with the most
 * readers, every platform of each (Apple Mail, Gmail, Outlook, Yahoo! Mail).
 */
export const DEFAULT_HTML_CHECK_CLIENTS: readonly string[] = Object.freeze(['apple-mail.*', 'gmail.*', 'outlook.*', 'yahoo.*']);

/** `GET /api/emails/{mailboxId}/{messageId}/html-check` query: the mail clients to check. */
export const HtmlCheckQuery = Type.Object({
  client: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'A `family.platform` id of the caniemail data (`outlook.windows`, `gmail.desktop-webmail`) or a glob of them (`gmail.*`, `*.ios`); repeat for more. ' +
        `Absent: ${DEFAULT_HTML_CHECK_CLIENTS.map((c) => `\`${c}\``).join(', ')}, the families with the most readers.`,
    }),
  ),
});
export type HtmlCheckQuery = Static<typeof HtmlCheckQuery>;

/** How one mail client handles a feature the mail uses: not at all, or in part, with the data's notes on why. */
export const HtmlCheckClient = Type.Object(
  {
    client: Type.String({ description: '`family.platform`, e.g. `outlook.windows`.' }),
    name: Type.String({ description: 'Its name in the data, e.g. `Outlook Windows`.' }),
    support: Type.Union([Type.Literal('no'), Type.Literal('partial')], { description: 'Support in the newest version the data lists for the client.' }),
    notes: Type.Array(Type.String(), { description: "The data's notes on that support (Markdown as caniemail writes it)." }),
  },
  { title: 'HtmlCheckClient' },
);
export type HtmlCheckClient = Static<typeof HtmlCheckClient>;

/** A feature the mail uses that some client checked lacks or supports in part. */
export const HtmlCheckIssue = Type.Object(
  {
    feature: Type.String({ description: 'The caniemail slug, e.g. `css-display-flex`.' }),
    title: Type.String(),
    url: Type.String({ description: 'The caniemail page of the feature.' }),
    category: Type.String({ description: '`html`, `css`, `image` or `others`.' }),
    clients: Type.Array(HtmlCheckClient),
    where: Type.Array(Type.String(), { description: "Up to 5 places in the mail: `line 12: <div style=\"display:flex\">`, `line 4, <style>: .row { display: flex }`." }),
    count: Type.Integer({ description: 'How many places use the feature.' }),
  },
  { title: 'HtmlCheckIssue' },
);
export type HtmlCheckIssue = Static<typeof HtmlCheckIssue>;

/**
 * The HTML check of a mail: which of its HTML and CSS features each client checked lacks or
 * supports in part, by the caniemail.com data. Issues with the most clients answering `no` come
 * first, then by feature slug.
 */
export const HtmlCheckReport = Type.Object(
  {
    hasHtml: Type.Boolean({ description: 'Whether the mail has an HTML body; without one there are no issues.' }),
    clients: Type.Array(Type.String(), { description: 'The client ids checked, sorted.' }),
    dataDate: Type.String({ description: 'The day the caniemail data was last updated (YYYY-MM-DD).' }),
    issues: Type.Array(HtmlCheckIssue),
  },
  { title: 'HtmlCheckReport' },
);
export type HtmlCheckReport = Static<typeof HtmlCheckReport>;

// ---- configuration endpoints -----------------------------------------------------------

export const QuotaUsage = Type.Object({
  period: Type.String({ description: 'Calendar month, YYYY-MM (UTC).' }),
  allowance: Nullable(Type.Integer({ description: 'Calls this month (role + top-ups); null = unlimited.' })),
  topUps: Type.Integer(),
  used: Type.Integer(),
  remaining: Nullable(Type.Integer()),
  resetsAt: Timestamp,
});
export type QuotaUsage = Static<typeof QuotaUsage>;

export const ConfigResponse = Type.Object({
  domains: Type.Array(Type.String()),
  expiryOptions: Type.Array(Type.Integer()),
  minExpiryTime: Type.Integer(),
  maxExpiryTime: Type.Integer(),
  role: Type.String(),
  limits: Type.Object({
    monthlyCalls: Nullable(Type.Integer()),
    maxMailboxes: Nullable(Type.Integer()),
    maxExpiryTime: Type.Integer(),
    maxMessageSize: Type.Integer(),
  }),
  mailboxes: Type.Object({ live: Type.Integer() }),
  quota: QuotaUsage,
  /** The port the service takes mail on over SMTP (its host is the API's); absent before SMTP listens. */
  smtpPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
});
export type ConfigResponse = Static<typeof ConfigResponse>;

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1 }),
    catchAll: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Also receive mail of mailboxes bound to no webhook, while no live mailbox is bound to this one. false = only mailboxes created with this webhookId.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const Webhook = Type.Object({ id: Type.String(), url: Type.String(), catchAll: Type.Boolean(), createdAt: Timestamp }, { title: 'Webhook' });
export type Webhook = Static<typeof Webhook>;

export const CreatedWebhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  catchAll: Type.Boolean(),
  createdAt: Timestamp,
  secret: Type.String({ description: 'whsec_… signing secret; shown only here.' }),
});
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });
export type WebhookList = Static<typeof WebhookList>;

export const WebhookParams = Type.Object({ id: Type.String() });

/** One try at delivering an event. */
export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first try.' }),
  at: Timestamp,
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String({ description: 'timeout, connection error or non-2xx, in words.' })),
  ok: Type.Boolean(),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

export const Delivery = Type.Object({
  id: Type.String({ description: 'The webhook-id header of every attempt.' }),
  event: Type.String(),
  messageId: Nullable(Type.String()),
  mailboxId: Nullable(Type.String()),
  status: DeliveryStatus,
  createdAt: Timestamp,
  nextAttemptAt: Nullable(Timestamp),
  attempts: Type.Array(DeliveryAttempt),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery) });
export type DeliveryList = Static<typeof DeliveryList>;

export const DeliveriesQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) });
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const WebhookTestResponse = Type.Object({
  delivered: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
});
export type WebhookTestResponse = Static<typeof WebhookTestResponse>;

export const RedeemBody = Type.Object({ code: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export type RedeemBody = Static<typeof RedeemBody>;

export const RedeemResponse = Type.Object({ calls: Type.Integer(), quota: QuotaUsage });
export type RedeemResponse = Static<typeof RedeemResponse>;

/** Why SMTP refused a recipient: a domain the service does not serve, no such mailbox, or one that expired. */
const RefusalReason = Type.Union([Type.Literal('unserved_domain'), Type.Literal('unknown_mailbox'), Type.Literal('expired_mailbox')]);

export const Refusal = Type.Object(
  {
    at: Timestamp,
    /** The recipient as the client sent it in RCPT TO. */
    address: Type.String(),
    reason: RefusalReason,
    /** The SMTP reply the client got (`550 5.1.1 …`). */
    reply: Type.String(),
    /** The envelope sender (MAIL FROM), when there was one. */
    from: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'Refusal' },
);
export type Refusal = Static<typeof Refusal>;

export const RefusalsQuery = Type.Object({
  since: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
export type RefusalsQuery = Static<typeof RefusalsQuery>;

export const RefusalsResponse = Type.Object({ refusals: Type.Array(Refusal) });
export type RefusalsResponse = Static<typeof RefusalsResponse>;

/** Where a fault rule acts: the mailbox's `RCPT TO`, or the reply after the body of a message addressed to it. */
export const FaultStage = Type.Union([Type.Literal('rcpt'), Type.Literal('data')]);
export type FaultStage = Static<typeof FaultStage>;

/** Longest wait a fault rule may put before a reply, ms. */
export const FAULT_DELAY_MAX = 60_000;

const faultFields = {
  at: FaultStage,
  /** The SMTP reply instead of the normal one: 4xx or 5xx. `421` also closes the connection (RFC 5321). */
  code: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
  /** Its enhanced status code (RFC 3463), e.g. `4.3.0`; default `<class>.0.0`. */
  enhancedCode: Type.Optional(Type.String({ pattern: '^[45]\\.\\d{1,3}\\.\\d{1,3}$' })),
  /** The reply text; default: a text that names the rule. */
  message: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** Wait this long (ms) before the reply, or before closing. */
  delay: Type.Optional(Type.Integer({ minimum: 1, maximum: FAULT_DELAY_MAX })),
  /** Close the connection without a reply (not with `code`). */
  disconnect: Type.Optional(Type.Boolean()),
  /** How many deliveries it applies to; absent: until cleared. */
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  /** The chance that it applies to a delivery, 0 < p ≤ 1. */
  probability: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
};

/**
 * A fault rule to add to a mailbox: at `at`, reply `code` and/or wait `delay`, or `disconnect`.
 * A rule needs at least one of them; `code` and `disconnect` do not go together.
 */
export const FaultRuleBody = Type.Object(faultFields, { additionalProperties: false, title: 'FaultRuleBody' });
export type FaultRuleBody = Static<typeof FaultRuleBody>;

/** A mailbox's fault rule as the API answers it. */
export const FaultRule = Type.Object(
  {
    id: Type.String(),
    ...faultFields,
    probability: Type.Number(),
    /** Deliveries it applied to so far. */
    hits: Type.Integer(),
    /** Deliveries it will still apply to; absent for a rule without `times`. */
    remaining: Type.Optional(Type.Integer()),
    createdAt: Timestamp,
  },
  { title: 'FaultRule' },
);
export type FaultRule = Static<typeof FaultRule>;

export const FaultsResponse = Type.Object({ faults: Type.Array(FaultRule) });
export type FaultsResponse = Static<typeof FaultsResponse>;

export const HealthResponse = Type.Object({ status: Type.Literal('ok'), version: Type.String() });
export type HealthResponse = Static<typeof HealthResponse>;

// ---- webhook events --------------------------------------------------------------------

/** Body of a `message.received` webhook call. */
export const MessageReceivedEvent = Type.Object(
  { type: Type.Literal('message.received'), timestamp: Timestamp, data: Message },
  { title: 'MessageReceivedEvent' },
);
export type MessageReceivedEvent = Static<typeof MessageReceivedEvent>;

/** Body of the event `POST /api/config/webhooks/{id}/test` sends. */
export const WebhookTestEvent = Type.Object(
  {
    type: Type.Literal('webhook.test'),
    timestamp: Timestamp,
    data: Type.Object({ webhookId: Type.String(), nonce: Type.String() }),
  },
  { title: 'WebhookTestEvent' },
);
export type WebhookTestEvent = Static<typeof WebhookTestEvent>;

/** Every event body a webhook receives. */
export type WebhookEvent = MessageReceivedEvent | WebhookTestEvent;

/** The fixed expiry choices of the reference service, in ms. */
export const EXPIRY_OPTIONS = [3_600_000, 86_400_000, 259_200_000] as const;
/** The shortest lifetime a mailbox may have, in ms. */
export const MIN_EXPIRY_TIME = 60_000;
/** The API-key request header. */
export const API_KEY_HEADER = 'x-api-key';
/**
 * The key of a service started for local use on 127.0.0.1: by the fixture's `mailwrightServer()`
 * and by `mailwright mcp` without MAILWRIGHT_URL, so each can use a service the other started.
 */
export const LOCAL_API_KEY = 'mw_playwright_local_key';
