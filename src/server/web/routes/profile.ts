// Owns the profile page: role, quota bar and redeeming codes, API keys (generate, rotate,
// revoke — a new key is shown once), and changing the password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redeemFor } from '../../actions.js';
import { ApiError } from '../../api/problem.js';
import { createKey, MIN_PASSWORD_LENGTH, passwordProblem } from '../../auth/accounts.js';
import { readQuota } from '../../auth/quota.js';
import { hashPassword, hashSecret, verifyPassword } from '../../auth/secrets.js';
import type { ServiceContext } from '../../context.js';
import { ALL_SCOPES, type Scope } from '../../store/store.js';
import { field, fields, notFound, userOf } from '../plugin.js';

/** Notices shown after a redirect (`?done=`), so a reload does not repeat the action. */
const DONE: Record<string, string> = {
  revoked: 'Revoked the key. Calls with it now answer 401 invalid_api_key.',
  password: 'Changed your password. Your other sessions were signed out.',
};

export async function profilePages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config, bus } = ctx;

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const user = userOf(request);
    const limits = config.roles[user.role] ?? config.roles.civilian!;
    const now = clock.now();
    const [quota, live, keys] = await Promise.all([readQuota(store, user, limits, now), store.countLiveMailboxes(user.id, now), store.listApiKeys(user.id)]);
    const done = DONE[(request.query as { done?: string }).done ?? ''];
    return reply.page('profile', {
      title: 'Profile', nav: 'profile', limits, quota, live, minPassword: MIN_PASSWORD_LENGTH,
      keys: keys.filter((k) => k.revokedAt === null), newKey: null, notice: done ?? null, passwordReset: request.session.passwordReset === true, ...extra,
    });
  }

  async function ownLiveKey(request: FastifyRequest) {
    const { id } = request.params as { id: string };
    const key = (await store.listApiKeys(userOf(request).id)).find((k) => k.id === id && k.revokedAt === null);
    if (!key) throw notFound('live API key with this id');
    return key;
  }

  app.get('/profile', async (request, reply) => render(request, reply));

  app.post('/profile/keys', async (request, reply) => {
    const name = field(request, 'name').slice(0, 64);
    const scopes = fields(request, 'scopes').filter((s): s is Scope => (ALL_SCOPES as readonly string[]).includes(s));
    if (!name) return render(request, reply.code(400), { error: 'Give the key a name (e.g. "ci"), so you can tell it apart later.' });
    if (scopes.length === 0) return render(request, reply.code(400), { error: `Choose at least one scope: ${ALL_SCOPES.join(' or ')}.` });
    const { key } = await createKey(store, userOf(request), { name, scopes, now: clock.now() });
    return render(request, reply, { newKey: { key, name, verb: 'Generated' } });
  });

  app.post('/profile/keys/:id/rotate', async (request, reply) => {
    const old = await ownLiveKey(request);
    const now = clock.now();
    const { key } = await createKey(store, userOf(request), { name: old.name, scopes: old.scopes, now });
    await store.revokeApiKey(old.id, now);
    return render(request, reply, { newKey: { key, name: old.name, verb: 'Rotated' }, notice: `The old key ${old.prefix}… is revoked.` });
  });

  app.post('/profile/keys/:id/revoke', async (request, reply) => {
    const key = await ownLiveKey(request);
    await store.revokeApiKey(key.id, clock.now());
    return reply.redirect('/profile?done=revoked', 303);
  });

  app.post('/profile/redeem', async (request, reply) => {
    try {
      const calls = await redeemFor(ctx, userOf(request), field(request, 'code'));
      return render(request, reply, { notice: `Redeemed: ${calls} calls added to this month's allowance.` });
    } catch (error) {
      if (error instanceof ApiError) return render(request, reply.code(error.status), { error: 'This code is unknown or was already redeemed. Check it, or ask your admin for a new one.' });
      throw error;
    }
  });

  // From the profile's form, or from the set-password page a one-time sign-in link opens
  // (`then=mailboxes`): that one is how a person gets in, so it goes on to the mailboxes.
  app.post('/profile/password', async (request, reply) => {
    const user = userOf(request);
    const password = field(request, 'password');
    const signingIn = field(request, 'then') === 'mailboxes' && request.session.passwordReset === true;
    if (user.passwordHash && !request.session.passwordReset && !(await verifyPassword(field(request, 'current'), user.passwordHash))) {
      return render(request, reply.code(400), { error: 'The current password is wrong; the password was not changed.' });
    }
    const problem = passwordProblem(password);
    if (problem) {
      const error = `Choose another password: ${problem}.`;
      if (signingIn) return reply.code(400).page('set-password', { title: 'Set your password', email: user.email, hasPassword: user.passwordHash !== null, minPassword: MIN_PASSWORD_LENGTH, error });
      return render(request, reply.code(400), { error });
    }
    await store.setPassword(user.id, await hashPassword(password));
    request.session.passwordReset = undefined;
    await store.deleteAccountSessions(user.id, hashSecret(request.session.sessionId));
    bus.emit('sessions.ended', user.id);
    return reply.redirect(signingIn ? '/mailboxes' : '/profile?done=password', 303);
  });
}
