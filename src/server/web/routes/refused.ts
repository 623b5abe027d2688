// Owns the refused page of the web UI: the recipients SMTP refused in the last day (unserved
// domain, no such mailbox, expired mailbox), newest first, as GET /api/emails/refusals lists
// them: an admin sees every refusal, any other account only those of its own (expired)
// mailboxes' addresses.
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import type { RefusalRecord } from '../../store/store.js';
import { userOf } from '../plugin.js';

/** How far back the page looks: the store keeps refusals for a day. */
const SINCE_MS = 86_400_000;
/** The most refusals the store keeps (it trims the oldest beyond): reading that many finds the newest. */
const READ_AT_MOST = 10_000;
/** Rows shown, the newest. */
const SHOWN = 200;

/** A refusal's reason in words. */
const WHY: Record<RefusalRecord['reason'], string> = {
  unserved_domain: 'domain not served',
  unknown_mailbox: 'no such mailbox',
  expired_mailbox: 'mailbox expired',
};

export async function refusedPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config } = ctx;

  app.get('/refused', async (request, reply) => {
    const user = userOf(request);
    // The store lists oldest first; the page shows the newest first.
    const all = await store.listRefusals({ accountId: user.isAdmin ? null : user.id, since: clock.now() - SINCE_MS, limit: READ_AT_MOST });
    const refusals = all.slice(-SHOWN).reverse().map((r) => ({ ...r, why: WHY[r.reason] ?? r.reason }));
    return reply.page('refused', {
      title: 'Refused', nav: 'refused', refusals, total: all.length, shown: SHOWN,
      catchAll: config.catchAll, domains: config.domains,
    });
  });
}
