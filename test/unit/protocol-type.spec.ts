// Tests that the protocol's own schema builders (src/protocol/type.ts) make exactly what
// TypeBox's make — the same keys in the same order, the same hidden markers — so the routes'
// validation, the OpenAPI document and TypeBox's compiler in the client see no difference;
// and that the service, which uses them to stay off TypeBox at run time, does not load it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { Type as TypeBox } from 'typebox';
import { Type } from '../../src/protocol/type.js';
import * as protocol from '../../src/protocol/index.js';
import { errorResponses } from '../../src/server/api/schema-helpers.js';

/** Every own key in order, whether it is enumerable, and its value likewise: what `toEqual` alone would not compare. */
function shape(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Reflect.ownKeys(value).map((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    return [String(key), descriptor.enumerable, shape(descriptor.value)];
  });
}

type Builders = typeof Type;
const builds: Array<[string, (T: Builders) => unknown]> = [
  ['String', (T) => T.String()],
  ['String with options', (T) => T.String({ minLength: 1, maxLength: 64, pattern: '^[a-z]+$', description: 'd', examples: ['ab'] })],
  ['String with format', (T) => T.String({ format: 'date-time' })],
  ['Integer', (T) => T.Integer({ minimum: 0, maximum: 10, default: 3 })],
  ['Number', (T) => T.Number()],
  ['Boolean', (T) => T.Boolean({ description: 'yes or no' })],
  ['Null', (T) => T.Null()],
  ['Literal string', (T) => T.Literal('message.received')],
  ['Literal number', (T) => T.Literal(2, { description: 'two' })],
  ['Literal boolean', (T) => T.Literal(true)],
  ['Array', (T) => T.Array(T.String(), { maxItems: 5, uniqueItems: true })],
  ['Union', (T) => T.Union([T.String(), T.Null()], { description: 'either' })],
  ['Enum', (T) => T.Enum(['a', 'b', 'c'], { description: 'one of three' })],
  ['Object', (T) => T.Object({ a: T.String(), b: T.Optional(T.Integer()), c: T.Union([T.Literal('x'), T.Null()]) }, { title: 'T', additionalProperties: false })],
  ['Object, every property optional', (T) => T.Object({ a: T.Optional(T.String()), b: T.Optional(T.Array(T.Boolean())) })],
  ['Object, empty', (T) => T.Object({})],
  ['Optional with options', (T) => T.Optional(T.String({ description: 'kept', minLength: 2 }))],
  ['Optional twice', (T) => T.Optional(T.Optional(T.Number()))],
  ['Record', (T) => T.Record(T.String(), T.Union([T.String(), T.Array(T.String())]))],
  ['Record with options', (T) => T.Record(T.String(), T.Integer(), { description: 'counts' })],
  ['spread properties', (T) => T.Object({ ...T.Object({ a: T.String(), b: T.Optional(T.String()) }).properties, c: T.Enum(['x']) }, { title: 'P' })],
];

for (const [name, build] of builds) {
  test(`builds ${name} exactly as TypeBox does`, () => {
    expect(shape(build(Type))).toEqual(shape(build(TypeBox as unknown as Builders)));
  });
}

/** Builds `schema` again with TypeBox from the parameters it shows: equal only if ours made what TypeBox makes of them. */
function rebuilt(schema: Record<string, unknown>): unknown {
  const { '~kind': kind, '~optional': optional } = schema as { '~kind'?: string; '~optional'?: true };
  const rest = (...keywords: string[]) => Object.fromEntries(Object.entries(schema).filter(([key]) => !keywords.includes(key)));
  const each = (values: unknown[]) => values.map((value) => rebuilt(value as Record<string, unknown>));
  let made: unknown;
  switch (kind) {
    case 'String': case 'Integer': case 'Number': case 'Boolean': case 'Null':
      made = (TypeBox[kind] as (options: object) => unknown)(rest('type'));
      break;
    case 'Literal':
      made = TypeBox.Literal(schema.const as string, rest('type', 'const'));
      break;
    case 'Array':
      made = TypeBox.Array(rebuilt(schema.items as Record<string, unknown>) as never, rest('type', 'items'));
      break;
    case 'Union':
      made = TypeBox.Union(each(schema.anyOf as unknown[]) as never, rest('anyOf'));
      break;
    case 'Enum':
      made = TypeBox.Enum(schema.enum as string[], rest('enum'));
      break;
    case 'Object': {
      const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([key, value]) => [key, rebuilt(value)]));
      made = TypeBox.Object(properties as never, rest('type', 'required', 'properties'));
      break;
    }
    case 'Record': {
      const patterns = schema.patternProperties as Record<string, Record<string, unknown>>;
      made = TypeBox.Record(TypeBox.String(), rebuilt(patterns['^.*$']!) as never, rest('type', 'patternProperties'));
      break;
    }
    default:
      throw new Error(`a schema of kind ${String(kind)}: src/protocol/type.ts has no builder for it; add one with a case here`);
  }
  return optional ? TypeBox.Optional(made as never) : made;
}

test('every schema the protocol exports, and every error response, is what TypeBox builds from the same parameters', () => {
  const schemas = Object.entries(protocol).filter(([, value]) => typeof value === 'object' && value !== null && '~kind' in value);
  const responses = Object.entries(errorResponses(400, 401, 403, 404, 409, 413, 429)).map(([status, schema]) => [`error ${status}`, schema] as const);
  expect(schemas.length).toBeGreaterThan(20);
  for (const [name, schema] of [...schemas, ...responses]) {
    expect(shape(schema), name).toEqual(shape(rebuilt(schema as Record<string, unknown>)));
  }
});

test('refuses what it does not build rather than building something else', () => {
  expect(() => Type.Literal(null as unknown as string)).toThrow(/a literal is a string, number, boolean or bigint/);
  expect(() => Type.Enum({ A: 'a' } as never)).toThrow(/as an array/);
  expect(() => Type.Record(Type.String({ pattern: '^x' }), Type.String())).toThrow(/plain Type.String\(\) key/);
  expect(() => Type.Record(Type.Integer() as never, Type.String())).toThrow(/plain Type.String\(\) key/);
});

test('the service does not load TypeBox (its schemas come from the protocol\'s own builders)', () => {
  // A child imports the built service with a loader hook that reports every module it loads.
  const hooks = [
    'let port;',
    'export function initialize(data) { port = data.port; }',
    'export async function load(url, context, next) { port.postMessage(url); return next(url, context); }',
  ].join('\n');
  const script = `
    import { register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    const loaded = [];
    port1.on('message', (url) => loaded.push(url));
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
    await import('./dist/server/index.js');
    await new Promise((resolve) => setTimeout(resolve, 100));
    port1.close();
    console.log(JSON.stringify(loaded));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) });
  expect(child.status, child.stderr).toBe(0);
  const loaded = JSON.parse(child.stdout.trim()) as string[];
  expect(loaded.some((url) => url.endsWith('/dist/protocol/schemas.js')), 'the hook saw the service load').toBe(true);
  expect(loaded.filter((url) => url.includes('/node_modules/typebox/'))).toEqual([]);
});
