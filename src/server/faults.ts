// Owns fault rules on the service's side: turning a rule as the API and the web UI take it into
// what the store keeps (with the checks the schema cannot make: a rule must do something, and
// `code` and `disconnect` do not go together), answering it back, and choosing, for an SMTP
// stage, the rule that applies to a delivery now (its chance rolled, its use counted atomically).
import type { FaultRule, FaultRuleBody, FaultStage } from '../protocol/index.js';
import { ApiError } from './api/problem.js';
import type { ServiceContext } from './context.js';
import type { FaultRecord, MailboxRecord } from './store/store.js';

/** Most rules one mailbox may hold at once. */
export const FAULTS_PER_MAILBOX = 20;

/** Adds a fault rule to a live mailbox of the caller's; refuses a rule that does nothing or contradicts itself. */
export async function addFaultTo(ctx: ServiceContext, mailbox: MailboxRecord, rule: FaultRuleBody): Promise<FaultRecord> {
  if (rule.code === undefined && rule.delay === undefined && !rule.disconnect) {
    throw new ApiError('invalid_request', 'a fault rule must do something: give code (a 4xx or 5xx reply), delay (ms) or disconnect: true', 'code');
  }
  if (rule.code !== undefined && rule.disconnect) {
    throw new ApiError('invalid_request', 'a fault rule cannot both reply (code) and close without a reply (disconnect); drop one of them', 'disconnect');
  }
  if (rule.code === undefined && (rule.enhancedCode !== undefined || rule.message !== undefined)) {
    throw new ApiError('invalid_request', `${rule.message !== undefined ? 'message' : 'enhancedCode'} goes with a reply: give code too`, rule.message !== undefined ? 'message' : 'enhancedCode');
  }
  if (rule.code !== undefined && rule.enhancedCode !== undefined && rule.enhancedCode[0] !== String(rule.code)[0]) {
    throw new ApiError('invalid_request', `enhancedCode ${rule.enhancedCode} is of another class than code ${rule.code}; start it with ${String(rule.code)[0]}`, 'enhancedCode');
  }
  const held = await ctx.store.listFaults(mailbox.id);
  if (held.length >= FAULTS_PER_MAILBOX) {
    throw new ApiError('invalid_request', `mailbox ${mailbox.address} already holds ${FAULTS_PER_MAILBOX} fault rules, the most it may; clear them with DELETE /api/emails/${mailbox.id}/faults`);
  }
  return ctx.store.addFault({
    mailboxId: mailbox.id, stage: rule.at, code: rule.code ?? null,
    enhancedCode: rule.code === undefined ? null : rule.enhancedCode ?? `${String(rule.code)[0]}.0.0`,
    message: rule.message ?? null, delayMs: rule.delay ?? null, disconnect: rule.disconnect === true,
    times: rule.times ?? null, probability: rule.probability ?? 1, createdAt: ctx.clock.now(),
  });
}

/** A stored rule as the API answers it. */
export function toFaultRule(f: FaultRecord): FaultRule {
  return {
    id: f.id, at: f.stage,
    ...(f.code === null ? {} : { code: f.code, enhancedCode: f.enhancedCode ?? undefined }),
    ...(f.message === null ? {} : { message: f.message }),
    ...(f.delayMs === null ? {} : { delay: f.delayMs }),
    ...(f.disconnect ? { disconnect: true } : {}),
    ...(f.times === null ? {} : { times: f.times, remaining: Math.max(0, f.times - f.hits) }),
    probability: f.probability, hits: f.hits, createdAt: new Date(f.createdAt).toISOString(),
  };
}

/** How a rule reads in a log line, an SMTP reply and an error: `451 4.3.0 at rcpt`, `delay 2000 ms at data`, `disconnect at rcpt`. */
export function describeFault(f: Pick<FaultRecord, 'stage' | 'code' | 'enhancedCode' | 'delayMs' | 'disconnect'>): string {
  const parts = [f.code === null ? null : `${f.code}${f.enhancedCode ? ` ${f.enhancedCode}` : ''}`, f.delayMs === null ? null : `delay ${f.delayMs} ms`, f.disconnect ? 'disconnect' : null];
  return `${parts.filter(Boolean).join(' + ')} at ${f.stage}`;
}

/**
 * The rule of these mailboxes' (their look-up's rules for `stage`, oldest first) that applies
 * to this delivery: the first whose chance comes up and whose use still counts (another
 * instance may have spent it meanwhile). Null when none does: a mailbox without rules costs
 * nothing here.
 */
export async function faultToApply(ctx: ServiceContext, rules: readonly FaultRecord[], stage: FaultStage): Promise<FaultRecord | null> {
  for (const rule of rules) {
    if (rule.stage !== stage || Math.random() >= rule.probability) continue;
    const taken = await ctx.store.takeFault(rule.id);
    if (taken) return taken;
  }
  return null;
}
