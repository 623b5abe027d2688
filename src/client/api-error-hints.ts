// Owns the "what to do about it" sentence of each API error code, so every
// MailwrightApiError message ends with a way out.
import type { ApiErrorCode } from '../protocol/index.js';

type Hint = (context: { field?: string; status: number }) => string;

const HINTS: Partial<Record<ApiErrorCode, Hint>> = {
  missing_api_key: () =>
    'Pass `apiKey` to MailwrightClient (e.g. from MAILWRIGHT_API_KEY); create a key with `mailwright keys create --email <you>` or start the server with `--api-key <key>`.',
  invalid_api_key: () =>
    'The key is unknown or revoked; create a new one with `mailwright keys create --email <you>` and pass it as `apiKey`.',
  scope_denied: () =>
    'This key lacks the scope the endpoint needs (`emails` or `config`); create a key with `mailwright keys create --email <you> --scopes emails,config`.',
  invalid_request: ({ field }) => (field ? `Fix \`${field}\` and send the request again.` : 'Fix the request and send it again.'),
  unknown_domain: () => 'Use one of the domains `client.getConfig()` lists, or start the server with `--domain <d>`.',
  address_taken: () => 'Choose another `name`, or leave it out for a random address.',
  mailbox_limit: () => 'From this client: `client.expireMailbox(id)` ends a mailbox now.',
  mailbox_not_found: () =>
    'The mailbox may have expired or belong to another account; create a new one with `client.createMailbox()`.',
  message_not_found: () => 'The message may have expired with its mailbox; list the mailbox again with `client.getMailbox()`.',
  webhook_not_found: () => "List the account's webhooks with `client.listWebhooks()`.",
  redeem_code_invalid: () => 'Check the code; an admin mints one with `mailwright quota code --calls <n>`.',
  payload_too_large: () => 'Send a smaller request body.',
  not_found: () => 'Check `baseURL` and that the server is a mailwright version with this endpoint.',
  internal_error: () => 'The server failed; its log (`mailwright serve --log-level debug`) has the details.',
};

/** The way out for an API error `code` with HTTP `status`. */
export function apiErrorHint(code: string, context: { field?: string; status: number }): string {
  const hint = (HINTS as Record<string, Hint | undefined>)[code];
  if (hint) return hint(context);
  if (context.status >= 500) return 'The server failed; its log has the details. Retry later.';
  return 'See the API documentation at `<baseURL>/docs`.';
}
