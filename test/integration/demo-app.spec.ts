// Drives every flow of the demo app (fixtures/app) over plain HTTP against a capture SMTP
// server: each mail must be real multipart/alternative transactional mail, and following its
// link or code must complete the flow. No browser, no fixed ports, no sleeps.

import { test, expect } from '@playwright/test';
import type { AddressInfo } from 'node:net';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { startDemoApp, type DemoApp } from '../../fixtures/app/server.js';

// ---- a capture SMTP server ------------------------------------------------------------------

interface Captured {
  rcptTo: string[];
  raw: string;
  parsed: Email;
}

/** Recipients at this domain are refused with 550, to exercise the app's error page. */
const REJECTED_DOMAIN = 'reject.test';

async function startCapture() {
  const received: Captured[] = [];
  const waiters: Array<{ to: string; resolve: (m: Captured) => void }> = [];
  const server = new SMTPServer({
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith(`@${REJECTED_DOMAIN}`)) {
        const error = Object.assign(new Error('5.1.1 Mailbox does not exist'), { responseCode: 550 });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw).then(
          (mail) => {
            const rcptTo = session.envelope.rcptTo.map((a) => a.address.toLowerCase());
            const captured = { rcptTo, raw, parsed: mail };
            const i = waiters.findIndex((w) => rcptTo.includes(w.to));
            if (i >= 0) waiters.splice(i, 1)[0]!.resolve(captured);
            else received.push(captured);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    /** The next unread mail to this address (already there, or the next to arrive). */
    next(to: string): Promise<Captured> {
      const i = received.findIndex((m) => m.rcptTo.includes(to));
      if (i >= 0) return Promise.resolve(received.splice(i, 1)[0]!);
      return new Promise((resolve) => waiters.push({ to, resolve }));
    },
    /** Unread mail to this address. */
    pending(to: string) {
      return received.filter((m) => m.rcptTo.includes(to));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- a tiny cookie-keeping HTTP client --------------------------------------------------------

interface Page {
  status: number;
  /** Path (and query) of the final URL after redirects. */
  path: string;
  html: string;
}

class Client {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  get(pathOrURL: string) {
    return this.request('GET', pathOrURL);
  }

  post(path: string, form: Record<string, string>) {
    return this.request('POST', path, new URLSearchParams(form));
  }

  private async request(method: string, target: string, body?: URLSearchParams): Promise<Page> {
    let url = new URL(target, this.base);
    for (let hops = 0; hops < 5; hops++) {
      const response = await fetch(url, {
        method,
        body,
        redirect: 'manual',
        headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = '', ...attributes] = line.split(';');
        const [name = '', value = ''] = pair.trim().split('=');
        if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url);
        method = 'GET';
        body = undefined;
        continue;
      }
      return { status: response.status, path: url.pathname + url.search, html: await response.text() };
    }
    throw new Error(`too many redirects from ${target}`);
  }
}

/** Text of the page's <h1>, entities decoded for the few the app emits. */
function heading(page: Page) {
  const match = /<h1>([\s\S]*?)<\/h1>/.exec(page.html);
  return match?.[1]?.replace(/&#39;/g, "'").replace(/&amp;/g, '&') ?? '';
}

function alertText(page: Page) {
  return /role="alert">([\s\S]*?)<\/p>/.exec(page.html)?.[1]?.replace(/&#39;/g, "'") ?? '';
}

// ---- mail checks ---------------------------------------------------------------------------

/** Asserts what every mail of the app must be, and returns the absolute link to `path`. */
function expectTransactionalMail(captured: Captured, to: string, subject: string) {
  const { parsed: mail, raw } = captured;
  expect(captured.rcptTo).toEqual([to]);
  expect(mail.to?.map((a) => ('address' in a ? a.address : undefined))).toEqual([to]);
  expect(mail.from).toMatchObject({ name: 'Demo App', address: 'no-reply@demo.test' });
  expect(mail.subject).toBe(subject);
  expect(raw).toMatch(/^Content-Type: multipart\/alternative;/im);
  expect(raw).toMatch(/^Content-Type: text\/plain/im);
  expect(raw).toMatch(/^Content-Type: text\/html/im);
  expect(mail.text).toContain('© 2026');
  expect(mail.text).toContain('+1 (555) 010-4477');
  expect(mail.html).toContain('<table');
  expect(mail.html).toContain('/unsubscribe?email=');
  expect(mail.html).toContain('/privacy');
  expect(mail.html).toContain('&copy; 2026');
}

function linkTo(captured: Captured, app: DemoApp, path: string) {
  const pattern = new RegExp(`${app.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${path}\\?token=[\\w-]+`);
  const inText = pattern.exec(captured.parsed.text ?? '')?.[0];
  expect(inText, `a ${path} link in the text part`).toBeTruthy();
  // The same link is the button's href and the "or paste this link" fallback in the HTML.
  expect(captured.parsed.html?.split(`href="${inText}"`).length).toBe(3);
  return inText!;
}

// ---- the tests -----------------------------------------------------------------------------

let smtp: Awaited<ReturnType<typeof startCapture>>;
let app: DemoApp;
let counter = 0;
/** A fresh address per use, so tests never read each other's mail. */
const address = (label: string) => `${label}-${process.pid}-${++counter}@example.test`;
const PASSWORD = 'correct horse battery';

test.beforeAll(async () => {
  smtp = await startCapture();
  app = await startDemoApp({ port: 0, smtpHost: '127.0.0.1', smtpPort: smtp.port });
});

test.afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

/** Signs up and follows the verification link; returns the verified address. */
async function verifiedUser(client: Client) {
  const email = address('user');
  await client.post('/signup', { email, password: PASSWORD });
  await client.get(linkTo(await smtp.next(email), app, '/verify'));
  return email;
}

test('form pages carry the labels and buttons specs rely on', async () => {
  const client = new Client(app.url);
  const expected: Array<[string, string[], string[]]> = [
    ['/signup', ['Email', 'Password'], ['Create account']],
    ['/login', ['Email'], ['Send code']],
    ['/login/password', ['Email', 'Password'], ['Sign in']],
    ['/forgot', ['Email'], ['Send reset link']],
    ['/magic', ['Email'], ['Email me a link']],
  ];
  for (const [path, labels, buttons] of expected) {
    const page = await client.get(path);
    expect(page.status, path).toBe(200);
    for (const label of labels) expect(page.html, path).toMatch(new RegExp(`<label for="\\w+">${label}</label>`));
    for (const button of buttons) expect(page.html, path).toContain(`<button type="submit">${button}</button>`);
  }
});

test('sign up: verification link activates the account; signing in before is refused', async () => {
  const client = new Client(app.url);
  const email = address('signup');

  const sent = await client.post('/signup', { email, password: PASSWORD });
  expect(sent.status).toBe(200);
  expect(heading(sent)).toBe('Check your inbox');

  const mail = await smtp.next(email);
  expectTransactionalMail(mail, email, 'Verify your email address');
  const link = linkTo(mail, app, '/verify');

  const early = await client.post('/login/password', { email, password: PASSWORD });
  expect(early.status).toBe(403);
  expect(alertText(early)).toContain('Please verify your email address before signing in');

  const verified = await client.get(link);
  expect(heading(verified)).toBe('Email verified');
  expect((await client.get(link)).status).toBe(400); // single use

  const signedIn = await client.post('/login/password', { email, password: PASSWORD });
  expect(signedIn.path).toBe('/account');
  expect(heading(signedIn)).toBe(`Welcome, ${email}`);
});

test('sign in with a one-time code: wrong code refused, right code signs in once', async () => {
  const client = new Client(app.url);
  const email = address('code');

  const codePage = await client.post('/login', { email });
  expect(codePage.path).toBe(`/login/code?email=${encodeURIComponent(email)}`);
  expect(heading(codePage)).toBe('Check your inbox');
  expect(codePage.html).toContain('<label for="code">Code</label>');
  expect(codePage.html).toContain('<button type="submit">Sign in</button>');

  const mail = await smtp.next(email);
  expectTransactionalMail(mail, email, 'Your sign-in code');
  expect(mail.parsed.text).toContain('expires in 10 minutes');
  const code = /letter-spacing:8px[^>]*>(\d{6})</.exec(mail.parsed.html ?? '')?.[1];
  expect(code).toMatch(/^\d{6}$/);
  expect(mail.parsed.text).toContain(code!);

  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const refused = await client.post('/login/code', { email, code: wrong });
  expect(refused.status).toBe(400);
  expect(alertText(refused)).toBe('Invalid code');

  const signedIn = await client.post('/login/code', { email, code: code! });
  expect(signedIn.path).toBe('/account');
  expect(heading(signedIn)).toBe(`Welcome, ${email}`);

  const reused = await new Client(app.url).post('/login/code', { email, code: code! });
  expect(alertText(reused)).toBe('Invalid code');
});

test('forgot password: reset link sets a new password that signs in', async () => {
  const client = new Client(app.url);
  const email = await verifiedUser(client);

  const sent = await client.post('/forgot', { email });
  expect(heading(sent)).toBe('Check your inbox');
  const mail = await smtp.next(email);
  expectTransactionalMail(mail, email, 'Reset your password');
  const link = linkTo(mail, app, '/reset');

  const form = await client.get(link);
  expect(form.html).toContain('<label for="password">New password</label>');
  expect(form.html).toContain('<button type="submit">Set password</button>');
  const token = new URL(link).searchParams.get('token')!;
  const updated = await client.post('/reset', { token, password: 'a brand new secret' });
  expect(heading(updated)).toBe('Password updated');

  const old = await client.post('/login/password', { email, password: PASSWORD });
  expect(old.status).toBe(401);
  const signedIn = await client.post('/login/password', { email, password: 'a brand new secret' });
  expect(heading(signedIn)).toBe(`Welcome, ${email}`);
  expect((await client.post('/reset', { token, password: 'yet another one' })).status).toBe(400);
});

test('forgot password for an unknown address answers the same and sends nothing', async () => {
  const email = address('nobody');
  const sent = await new Client(app.url).post('/forgot', { email });
  expect(heading(sent)).toBe('Check your inbox');
  // The app answers only after the SMTP server accepted the mail, so nothing pending means nothing sent.
  expect(smtp.pending(email)).toEqual([]);
});

test('magic link signs in', async () => {
  const client = new Client(app.url);
  const email = address('magic');

  const sent = await client.post('/magic', { email });
  expect(heading(sent)).toBe('Check your inbox');
  const mail = await smtp.next(email);
  expectTransactionalMail(mail, email, 'Your magic sign-in link');
  const link = linkTo(mail, app, '/magic/callback');

  const signedIn = await client.get(link);
  expect(signedIn.path).toBe('/account');
  expect(heading(signedIn)).toBe(`Welcome, ${email}`);
  expect((await new Client(app.url).get(link)).status).toBe(400);
});

test('email change: old address is warned, new address confirms', async () => {
  const client = new Client(app.url);
  const oldEmail = await verifiedUser(client);
  await client.post('/login/password', { email: oldEmail, password: PASSWORD });
  const newEmail = address('new');

  const form = await client.get('/account/email');
  expect(form.html).toContain('<label for="email">New email</label>');
  const sent = await client.post('/account/email', { email: newEmail });
  expect(heading(sent)).toBe('Check your inbox');

  const notice = await smtp.next(oldEmail);
  expectTransactionalMail(notice, oldEmail, 'Your email is being changed');
  expect(notice.parsed.text).toContain("This wasn't me: ");
  linkTo(notice, app, '/account/email/cancel');

  const confirmation = await smtp.next(newEmail);
  expectTransactionalMail(confirmation, newEmail, 'Confirm your new email address');
  const changed = await client.get(linkTo(confirmation, app, '/account/email/confirm'));
  expect(heading(changed)).toBe('Email changed');

  expect(heading(await client.get('/account'))).toBe(`Welcome, ${newEmail}`);
  const withNew = await new Client(app.url).post('/login/password', { email: newEmail, password: PASSWORD });
  expect(withNew.path).toBe('/account');
});

test("email change: \"This wasn't me\" cancels the pending change", async () => {
  const client = new Client(app.url);
  const oldEmail = await verifiedUser(client);
  await client.post('/login/password', { email: oldEmail, password: PASSWORD });
  const newEmail = address('hijack');
  await client.post('/account/email', { email: newEmail });

  const cancelled = await client.get(linkTo(await smtp.next(oldEmail), app, '/account/email/cancel'));
  expect(heading(cancelled)).toBe('Email change cancelled');
  const confirm = await client.get(linkTo(await smtp.next(newEmail), app, '/account/email/confirm'));
  expect(confirm.status).toBe(400);
  expect(heading(await client.get('/account'))).toBe(`Welcome, ${oldEmail}`);
});

test('a refused mail shows an error page instead of "check your inbox"', async () => {
  const email = `someone@${REJECTED_DOMAIN}`;
  const page = await new Client(app.url).post('/magic', { email });
  expect(page.status).toBe(502);
  expect(heading(page)).toBe("We couldn't send the email");
  expect(alertText(page)).toContain(`Sending to ${email} failed`);
});

test('the dashboard needs a session', async () => {
  const page = await new Client(app.url).get('/account');
  expect(page.path).toBe('/login');
});
