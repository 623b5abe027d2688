// Owns signing in and out: the sign-in page at `/`, failed-attempt limits per account and per
// address, one-time sign-in links (first start), and open sign-up when the service allows it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, createAccount, AdminError, MIN_PASSWORD_LENGTH, passwordProblem } from '../../auth/accounts.js';
import { hashSecret } from '../../auth/secrets.js';
import type { ServiceContext } from '../../context.js';
import { VERSION } from '../../version.js';
import { field, PageError } from '../plugin.js';

/** Failed sign-ins allowed per account, and per client address, in {@link FAILURE_WINDOW_MS}. */
const FAILURES_PER_ACCOUNT = 5;
const FAILURES_PER_ADDRESS = 20;
const FAILURE_WINDOW_MS = 15 * 60_000;

/** Where to go after signing in: a path of this site only. */
function nextPath(value: unknown): string {
  const next = typeof value === 'string' ? value : '';
  return next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/mailboxes';
}

export async function signInPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config } = ctx;
  const byAccount = app.createRateLimit({
    max: FAILURES_PER_ACCOUNT, timeWindow: FAILURE_WINDOW_MS,
    keyGenerator: (request) => `account:${field(request, 'email').toLowerCase()}`,
  });
  const byAddress = app.createRateLimit({ max: FAILURES_PER_ADDRESS, timeWindow: FAILURE_WINDOW_MS, keyGenerator: (request) => `address:${request.ip}` });

  /** Refuses with a "try again in N s" page when this account or address has used up its failures. */
  async function assertNotLimited(request: FastifyRequest): Promise<void> {
    for (const [limiter, subject] of [[byAccount, 'this account'], [byAddress, 'your address']] as const) {
      const state = await limiter(request, { increment: false });
      if (!state.isAllowed && state.remaining === 0) {
        const seconds = Math.max(1, state.ttlInSeconds);
        throw new PageError(
          429, 'Too many failed sign-ins',
          `There were ${state.max} failed sign-ins for ${subject} in ${FAILURE_WINDOW_MS / 60_000} minutes. Try again in ${seconds} s, or ask an admin to set a new password.`,
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

  app.post('/sign-in', { config: { access: 'public' } }, async (request, reply) => {
    await assertNotLimited(request);
    const email = field(request, 'email');
    const account = await authenticate(store, email, field(request, 'password'));
    if (!account) {
      await byAccount(request);
      await byAddress(request);
      // The same answer for an unknown email and a wrong password.
      return reply.code(401).page('sign-in', { title: 'Sign in', email, openSignup: config.openSignup, error: 'Wrong email or password.' });
    }
    await signIn(request, account.id);
    return reply.redirect(nextPath((request.query as { next?: string }).next), 303);
  });

  app.post('/sign-out', { config: { access: 'public' } }, async (request, reply) => {
    await request.session.destroy();
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
    return reply.page('set-password', { title: 'Set your password', email: account.email, minPassword: MIN_PASSWORD_LENGTH });
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
