import { expect, test } from '@playwright/test';
import { missingServiceFlags, SERVICE_NODE_FLAGS } from '../../src/server/node-flags.js';

test.describe('missingServiceFlags', () => {
  test('a bare start lacks all of them, a start with them lacks none', () => {
    expect(missingServiceFlags([])).toEqual([...SERVICE_NODE_FLAGS]);
    expect(missingServiceFlags(SERVICE_NODE_FLAGS)).toEqual([]);
    expect(missingServiceFlags(['--import', 'tsx', '--max-old-space-size=512', '--enable-source-maps'])).toEqual([...SERVICE_NODE_FLAGS]);
  });

  test('a flag set by hand wins with any value, spelling or negation, on the command line or in NODE_OPTIONS', () => {
    expect(missingServiceFlags(['--max-semi-space-size=16'])).toEqual(['--v8-pool-size=2', '--no-memory-reducer', '--heap-growing-percent=50']);
    expect(missingServiceFlags(['--max_semi_space_size=16', '--memory-reducer', '--heap_growing_percent=20'])).toEqual(['--v8-pool-size=2']);
    expect(missingServiceFlags(['--no-memory_reducer'])).toEqual(['--max-semi-space-size=2', '--v8-pool-size=2', '--heap-growing-percent=50']);
    expect(missingServiceFlags([], '--v8-pool-size=8  --max-semi-space-size=4')).toEqual(['--no-memory-reducer', '--heap-growing-percent=50']);
  });

  test('a longer flag that begins with the same words is another flag', () => {
    expect(missingServiceFlags(['--max-semi-space-size-extra=1', '--memory-reducer-for-small-heaps'])).toEqual([...SERVICE_NODE_FLAGS]);
  });
});
