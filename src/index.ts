// The `mailwright` entry: the Playwright fixtures (test, expect, defineMailFixtures), the
// config helpers (mailwrightServer, chromiumLaunchOptions) and the public types and errors.
export * from './playwright/index.js';
export { MailwrightApiError, MailwrightError } from './client/index.js';
export type { Address, Attachment, FaultRule, FaultStage, Mailbox, Message } from './protocol/index.js';
