// Tests the client's lenient parsing of quota (RateLimit-Policy / RateLimit) and Retry-After headers.
import { expect, test } from '@playwright/test';
import { parseQuotaHeaders, parseRetryAfter } from '../../src/client/index.js';

test.describe('parseQuotaHeaders', () => {
  test('reads the IETF draft form the server sends', () => {
    expect(
      parseQuotaHeaders({ 'ratelimit-policy': '"monthly";q=10000;w=2592000', ratelimit: '"monthly";r=9876;t=86400' }),
    ).toEqual({ policy: 'monthly', limit: 10_000, remaining: 9_876, resetSeconds: 86_400 });
  });

  test('matches the state to its policy among several', () => {
    expect(
      parseQuotaHeaders({
        'ratelimit-policy': '"burst";q=10;w=1, "monthly";q=500;w=2592000',
        ratelimit: '"monthly";r=12;t=30',
      }),
    ).toEqual({ policy: 'monthly', limit: 500, remaining: 12, resetSeconds: 30 });
  });

  test('an unlimited policy (no q) has a null limit', () => {
    expect(parseQuotaHeaders({ 'ratelimit-policy': '"monthly";w=2592000', ratelimit: '"monthly";t=5' })).toEqual({
      policy: 'monthly',
      limit: null,
      remaining: null,
      resetSeconds: 5,
    });
  });

  test('is undefined without quota headers and null for what it cannot read', () => {
    expect(parseQuotaHeaders({ 'content-type': 'application/json' })).toBeUndefined();
    expect(parseQuotaHeaders({ ratelimit: '"monthly";r=lots' })).toEqual({
      policy: 'monthly',
      limit: null,
      remaining: null,
      resetSeconds: null,
    });
  });
});

test.describe('parseRetryAfter', () => {
  test('reads seconds and HTTP-dates', () => {
    const now = Date.UTC(2025, 0, 1, 12, 0, 0);
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter(new Date(now - 90_000).toUTCString(), now)).toBe(0);
  });

  test('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-5')).toBeUndefined();
  });
});
