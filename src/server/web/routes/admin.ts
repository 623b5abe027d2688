// Owns the admin pages (accounts with the admin flag; 404 for everyone else): accounts with
// their roles, creating accounts, granting top-ups and minting redeem codes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminError, createAccount, grantQuota, MIN_PASSWORD_LENGTH, mintRedeemCode, passwordProblem, requireAccount } from '../../auth/accounts.js';
import type { ServiceContext } from '../../context.js';
import { field, notFound } from '../plugin.js';

export async function adminPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config } = ctx;
  const roles = Object.keys(config.roles);
  const admin = { config: { access: 'admin' as const } };

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const accounts = await store.listAccounts(clock.now());
    return reply.page('admin', { title: 'Admin', nav: 'admin', accounts, roles, minted: null, minPassword: MIN_PASSWORD_LENGTH, ...extra });
  }

  /** Runs an admin action; its AdminError becomes the page's error message. */
  async function act(request: FastifyRequest, reply: FastifyReply, action: () => Promise<Record<string, unknown>>) {
    try {
      return render(request, reply, await action());
    } catch (error) {
      if (error instanceof AdminError) return render(request, reply.code(400), { error: error.message });
      throw error;
    }
  }

  const calls = (request: FastifyRequest) => {
    const text = field(request, 'calls');
    if (!/^\d+$/.test(text) || Number(text) <= 0) throw new AdminError('invalid_value', `calls must be a positive whole number, got "${text}"`);
    return Number(text);
  };

  app.get('/admin', admin, async (request, reply) => render(request, reply));

  app.post('/admin/accounts', admin, async (request, reply) => act(request, reply, async () => {
    const password = field(request, 'password');
    const problem = passwordProblem(password);
    if (problem) throw new AdminError('invalid_value', `Choose another password: ${problem}.`);
    const account = await createAccount(store, roles, { email: field(request, 'email'), password, role: field(request, 'role') || 'civilian', now: clock.now() });
    return { notice: `Created ${account.email} (${account.role}). They can sign in now.` };
  }));

  app.post('/admin/accounts/:id/role', admin, async (request, reply) => act(request, reply, async () => {
    const { id } = request.params as { id: string };
    const role = field(request, 'role');
    if (!roles.includes(role)) throw new AdminError('unknown_role', `role "${role}" is unknown; choose one of ${roles.join(', ')}`);
    const account = await store.getAccount(id);
    if (!account || !(await store.setAccountRole(id, role))) throw notFound('account with this id');
    return { notice: `${account.email} is now ${role}.` };
  }));

  app.post('/admin/grant', admin, async (request, reply) => act(request, reply, async () => {
    const account = await requireAccount(store, field(request, 'email'));
    const n = calls(request);
    await grantQuota(store, account, n, clock.now());
    return { notice: `Granted ${n} calls to ${account.email} for this month.` };
  }));

  app.post('/admin/codes', admin, async (request, reply) => act(request, reply, async () => {
    const n = calls(request);
    return { minted: { code: await mintRedeemCode(store, n, clock.now()), calls: n } };
  }));
}
