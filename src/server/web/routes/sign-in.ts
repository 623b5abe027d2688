// Owns signing in and out: the sign-in page at `/` (and the site's icon, which every page's
// browser asks for), failed-attempt limits per account from an address and per address
// (counted in the store), one-time sign-in links (first start), and open sign-up when the
// service allows it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, createAccount, AdminError, MIN_PASSWORD_LENGTH, passwordProblem } from '../../auth/accounts.js';
import { hashSecret } from '../../auth/secrets.js';
import type { ServiceContext } from '../../context.js';
import { VERSION } from '../../version.js';
import { field, PageError } from '../plugin.js';

/**
 * Failed sign-ins allowed in {@link FAILURE_WINDOW_MS}: per account from one client address
 * (so failures from elsewhere never stop the owner), and per client address whatever the account.
 */
const FAILURES_PER_ACCOUNT_AND_ADDRESS = 5;
const FAILURES_PER_ADDRESS = 20;
const FAILURE_WINDOW_MS = 15 * 60_000;

/** The site's icon (an SVG, which browsers take at /favicon.ico too). */
const FAVICON = fileURLToPath(new URL('../static/favicon.svg', import.meta.url));

/**
 * Where to go after signing in: a path of this site only, else the mailboxes. Printable ASCII
 * without spaces (browsers drop tabs and line breaks from a URL, so `/\t/host` would read as
 * `//host`; other characters cannot go into a header), starting with one `/` and not `//` or `/\`
 * (which browsers read as another host).
 */
export function nextPath(value: unknown): string {
  const next = typeof value === 'string' ? value : '';
  return /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/mailboxes';
}

export async function signInPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config, bus } = ctx;
  /**
   * The store keys failures are counted under, with their limits. Hashed: the store keeps no
   * address or email for them. The address is the proxy's word only under --trust-proxy.
   */
  function failureKeys(request: FastifyRequest, email: string) {
    return [
      { key: `address:${hashSecret(request.ip)}`, max: FAILURES_PER_ADDRESS, subject: 'your address' },
      { key: `account:${hashSecret(`${email.toLowerCase()}\n${request.ip}`)}`, max: FAILURES_PER_ACCOUNT_AND_ADDRESS, subject: 'this account from your address' },
    ];
  }

  /** Refuses with a "try again in N s" page when this address, or this account from it, has used up its failures. */
  async function assertNotLimited(request: FastifyRequest, email: string): Promise<void> {
    const now = clock.now();
    for (const { key, max, subject } of failureKeys(request, email)) {
      const failures = await store.getSignInFailures(key, now);
      if (failures && failures.count >= max) {
        const seconds = Math.max(1, Math.ceil((failures.windowEndsAt - now) / 1000));
        throw new PageError(
          429, 'Too many failed sign-ins',
          `There were ${max} failed sign-ins for ${subject} in ${FAILURE_WINDOW_MS / 60_000} minutes. Try again in ${seconds} s, or ask an admin to set a new password.`,
          { 'retry-after': String(seconds) },
        );
      }
    }
  }

  async function signIn(request: FastifyRequest, accountId: string): Promise<void> {
    await request.session.regenerate();
    request.session.accountId = accountId;
  }

  app.get('/', { config: { access: 'public' } }, async (request, reply) => {
    const accept = request.headers.accept ?? '';
    if (!/text\/html/.test(accept) && /json/.test(accept)) {
      return reply.send({ name: 'mailwright', version: VERSION, links: { docs: '/docs', openapi: '/openapi.json', health: '/health', api: '/api/emails', ui: '/' } });
    }
    if (request.user) return reply.redirect('/mailboxes', 303);
    return reply.page('sign-in', { title: 'Sign in', openSignup: config.openSignup, next: (request.query as { next?: string }).next });
  });

  // Browsers ask every site for /favicon.ico whatever its pages link; answered from the static folder.
  const favicon = await readFile(FAVICON);
  app.get('/favicon.ico', { config: { access: 'public' } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(favicon));

  app.post('/sign-in', { config: { access: 'public' } }, async (request, reply) => {
    const email = field(request, 'email');
    await assertNotLimited(request, email);
    const account = await authenticate(store, email, field(request, 'password'));
    const [byAddress, byAccount] = failureKeys(request, email);
    if (!account) {
      for (const { key } of [byAddress!, byAccount!]) await store.countSignInFailure(key, clock.now(), FAILURE_WINDOW_MS);
      // The same answer for an unknown email and a wrong password.
      return reply.code(401).page('sign-in', { title: 'Sign in', email, openSignup: config.openSignup, error: 'Wrong email or password.' });
    }
    await store.clearSignInFailures(byAccount!.key);
    await signIn(request, account.id);
    return reply.redirect(nextPath((request.query as { next?: string }).next), 303);
  });

  app.post('/sign-out', { config: { access: 'public' } }, async (request, reply) => {
    const accountId = request.session.accountId;
    await request.session.destroy();
    if (accountId) bus.emit('sessions.ended', accountId);
    return reply.redirect('/', 303);
  });

  // A one-time link (printed at first start): signs in once, then asks for a password.
  app.get('/sign-in/link/:token', { config: { access: 'public' } }, async (request, reply) => {
    const { token } = request.params as { token: string };
    const accountId = await store.consumeSignInToken(hashSecret(token), clock.now());
    const account = accountId ? await store.getAccount(accountId) : null;
    if (!account) {
      throw new PageError(410, 'This sign-in link has expired', 'A sign-in link works once, for 15 minutes. Start the service again for a new one, or run `npx mailwright accounts sign-in-link --email EMAIL`.');
    }
    await signIn(request, account.id);
    request.session.passwordReset = true;
    request.user = account;
    return reply.page('set-password', { title: 'Set your password', email: account.email, hasPassword: account.passwordHash !== null, minPassword: MIN_PASSWORD_LENGTH });
  });

  if (config.openSignup) {
    const signUps = app.createRateLimit({ max: 10, timeWindow: 3_600_000, keyGenerator: (request) => `signup:${request.ip}` });
    app.get('/sign-up', { config: { access: 'public' } }, async (request, reply) => {
      if (request.user) return reply.redirect('/mailboxes', 303);
      return reply.page('sign-up', { title: 'Create account', minPassword: MIN_PASSWORD_LENGTH });
    });
    app.post('/sign-up', { config: { access: 'public' } }, async (request, reply) => {
      const limit = await signUps(request);
      if (!limit.isAllowed && limit.isExceeded) {
        throw new PageError(429, 'Too many new accounts', `Your address created ${limit.max} accounts this hour. Try again in ${limit.ttlInSeconds} s.`, { 'retry-after': String(limit.ttlInSeconds) });
      }
      const email = field(request, 'email');
      const password = field(request, 'password');
      const again = (error: string) => reply.code(400).page('sign-up', { title: 'Create account', email, error, minPassword: MIN_PASSWORD_LENGTH });
      const problem = passwordProblem(password);
      if (problem) return again(`Choose another password: ${problem}.`);
      try {
        const account = await createAccount(store, Object.keys(config.roles), { email, password, role: 'civilian', now: clock.now() });
        await signIn(request, account.id);
        return reply.redirect('/mailboxes', 303);
      } catch (error) {
        // Whether an email has an account is not a secret worth guarding on an open sign-up page.
        if (error instanceof AdminError) return again(error.code === 'account_exists' ? `${email} already has an account; sign in instead.` : error.message);
        throw error;
      }
    });
  }
}
