// Owns account administration shared by the CLI and the server: accounts, keys, top-ups,
// redeem codes, passwords (their rules, signing in), one-time sign-in links, and the admin
// account and the key that `--api-key` guarantees.
import { ALL_SCOPES, StoreConflictError, type AccountRecord, type ApiKeyRecord, type Scope, type Store } from '../store/store.js';
import { randomToken } from '../ids.js';
import { generateApiKey, generateRedeemCode, hashPassword, hashSecret, normalizeRedeemCode, UNMATCHABLE_PASSWORD_HASH, verifyPassword } from './secrets.js';
import { periodOf } from './quota.js';

/** A failure of an administrative action, with a code for scripts and a message for people. */
export class AdminError extends Error {
  constructor(readonly code: 'account_exists' | 'account_not_found' | 'unknown_role' | 'invalid_scope' | 'key_not_found' | 'invalid_value', message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

export function parseScopes(value: string | undefined): Scope[] {
  if (!value) return [...ALL_SCOPES];
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const scope of scopes) {
    if (!(ALL_SCOPES as readonly string[]).includes(scope)) {
      throw new AdminError('invalid_scope', `scope "${scope}" is unknown; use a comma-separated subset of ${ALL_SCOPES.join(',')}`);
    }
  }
  return [...new Set(scopes)] as Scope[];
}

export async function createAccount(
  store: Store,
  roles: readonly string[],
  input: { email: string; role?: string; password?: string; isAdmin?: boolean; now: number },
): Promise<AccountRecord> {
  const role = input.role ?? 'civilian';
  if (!roles.includes(role)) throw new AdminError('unknown_role', `role "${role}" is unknown; choose one of ${roles.join(', ')}`);
  if (!/^[^\s@]+@[^\s@]+$/.test(input.email)) throw new AdminError('invalid_value', `"${input.email}" is not an email address; pass --email user@example.com`);
  try {
    return await store.createAccount({
      email: input.email,
      role,
      isAdmin: input.isAdmin ?? false,
      passwordHash: input.password ? await hashPassword(input.password) : null,
      now: input.now,
    });
  } catch (error) {
    if (error instanceof StoreConflictError) throw new AdminError('account_exists', `an account with email ${input.email} already exists; pick another email or use it`);
    throw error;
  }
}

export async function requireAccount(store: Store, email: string): Promise<AccountRecord> {
  const account = await store.getAccountByEmail(email);
  if (!account) throw new AdminError('account_not_found', `no account has email ${email}; create it with \`mailwright accounts create --email ${email}\``);
  return account;
}

/** Creates a key for the account; the returned `key` is the only time the secret exists in clear. */
export async function createKey(store: Store, account: AccountRecord, input: { scopes?: Scope[]; name?: string; now: number }): Promise<{ key: string; record: ApiKeyRecord }> {
  const { key, prefix, hash } = generateApiKey();
  const record = await store.createApiKey({ accountId: account.id, name: input.name ?? 'default', prefix, hash, scopes: input.scopes ?? [...ALL_SCOPES], now: input.now });
  return { key, record };
}

export const ADMIN_EMAIL = 'admin@mailwright.local';

/**
 * Makes sure an admin account holding `key` exists (`--api-key`). An existing key is left
 * as it is; a new one is attached to the admin account, created as `emperor` when missing.
 */
export async function ensureAdminKey(store: Store, key: string, now: number): Promise<ApiKeyRecord> {
  const hash = hashSecret(key);
  const existing = await store.findApiKeyByHash(hash);
  if (existing) return existing;
  const admin = (await store.getAccountByEmail(ADMIN_EMAIL)) ?? (await store.createAccount({ email: ADMIN_EMAIL, role: 'emperor', isAdmin: true, passwordHash: null, now }));
  return store.createApiKey({ accountId: admin.id, name: 'configured', prefix: key.slice(0, 8), hash, scopes: [...ALL_SCOPES], now });
}

/** First start with no key configured: creates the admin account and returns its new key, or null when accounts exist. */
export async function bootstrapAdmin(store: Store, now: number): Promise<string | null> {
  if (await store.getAccountByEmail(ADMIN_EMAIL)) return null;
  const admin = await store.createAccount({ email: ADMIN_EMAIL, role: 'emperor', isAdmin: true, passwordHash: null, now });
  return (await createKey(store, admin, { name: 'bootstrap', now })).key;
}

function assertPositiveCalls(calls: number): void {
  if (!Number.isInteger(calls) || calls <= 0) throw new AdminError('invalid_value', `--calls must be a positive whole number, got ${calls}`);
}

/** A purchased top-up: adds `calls` to the account's allowance for the current month. */
export async function grantQuota(store: Store, account: AccountRecord, calls: number, now: number): Promise<void> {
  assertPositiveCalls(calls);
  await store.addTopUp({ accountId: account.id, period: periodOf(now), calls, source: 'grant', now });
}

/** Mints a one-use code worth `calls`; returns the code (shown once). */
export async function mintRedeemCode(store: Store, calls: number, now: number): Promise<string> {
  assertPositiveCalls(calls);
  const code = generateRedeemCode();
  await store.createRedeemCode({ hash: hashSecret(normalizeRedeemCode(code)), calls, now });
  return code;
}

/** Shortest password the service accepts. */
export const MIN_PASSWORD_LENGTH = 8;

/** How long a one-time sign-in link works. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

/** Checks a password against the policy; the message names the rule. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password has ${password.length} characters; use at least ${MIN_PASSWORD_LENGTH}`;
  if (password.length > 1024) return 'the password is longer than 1024 characters; use a shorter one';
  return null;
}

/**
 * The account with this email and password, or null. Unknown emails cost the same scrypt
 * work as wrong passwords, so the answer and its timing do not tell which was wrong.
 */
export async function authenticate(store: Store, email: string, password: string): Promise<AccountRecord | null> {
  const account = await store.getAccountByEmail(email.trim());
  const ok = await verifyPassword(password, account?.passwordHash ?? UNMATCHABLE_PASSWORD_HASH);
  return ok && account?.passwordHash ? account : null;
}

/** A one-time sign-in token for the account (valid {@link SIGN_IN_LINK_TTL_MS}); the clear token exists only in the returned string. */
export async function createSignInToken(store: Store, account: AccountRecord, now: number): Promise<string> {
  const token = randomToken(40);
  await store.createSignInToken({ hash: hashSecret(token), accountId: account.id, expiresAt: now + SIGN_IN_LINK_TTL_MS });
  return token;
}

/** The web UI address that uses a sign-in token. */
export function signInLink(baseUrl: string, token: string): string {
  return `${baseUrl}/sign-in/link/${token}`;
}
