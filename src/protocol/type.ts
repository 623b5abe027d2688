// Owns building the protocol's schemas without loading TypeBox at run time. TypeBox is some
// 370 modules, ~8 MB of a running service's memory, and the schemas use a dozen of its builders,
// each of which makes a plain JSON Schema object with a hidden `~kind` (and, for an optional
// property, `~optional`). These builders make exactly those objects: the same keys in the same
// order, the same hidden markers. They are typed as TypeBox's own, so `Static<>`, the route type
// provider and TypeBox's compiler (the client's and the fixture's checks) see no difference;
// test/unit/protocol-type.spec.ts holds each one equal to TypeBox's.
import type { Type as TypeBox } from 'typebox';

type Options = object | undefined;

function hidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { configurable: true, writable: true, enumerable: false, value });
}

/** A schema of `kind`: its keywords, then the caller's options, then the hidden kind (as TypeBox's Memory.Create). */
function create(kind: string, keywords: object, options: Options): object {
  const schema = { ...keywords, ...options };
  hidden(schema, '~kind', kind);
  return schema;
}

/**
 * A copy of `current` with the hidden `marks` and the caller's `options` set (as TypeBox's
 * Memory.Update): its own properties as they are, less those named again, which follow.
 */
function update(current: object, marks: Record<string, unknown>, options: Options = {}): object {
  const result = {};
  const named = [...Object.keys(marks), ...Object.keys(options)];
  for (const key of Reflect.ownKeys(current)) {
    if (typeof key === 'string' && named.includes(key)) continue;
    Object.defineProperty(result, key, Object.getOwnPropertyDescriptor(current, key)!);
  }
  for (const [key, value] of Object.entries(marks)) hidden(result, key, value);
  for (const [key, value] of Object.entries(options)) Object.defineProperty(result, key, { configurable: true, writable: true, enumerable: true, value });
  return result;
}

function isOptional(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Object.prototype.hasOwnProperty.call(schema, '~optional');
}

function literalType(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
    case 'boolean':
    case 'number':
    case 'string':
      return typeof value;
    default:
      throw new TypeError(`Type.Literal(${String(value)}): a literal is a string, number, boolean or bigint`);
  }
}

/** The builders the protocol's schemas use, as TypeBox's `Type.*` of the same names. */
export const Type = {
  String: ((options?: Options) => create('String', { type: 'string' }, options)) as typeof TypeBox.String,
  Integer: ((options?: Options) => create('Integer', { type: 'integer' }, options)) as typeof TypeBox.Integer,
  Number: ((options?: Options) => create('Number', { type: 'number' }, options)) as typeof TypeBox.Number,
  Boolean: ((options?: Options) => create('Boolean', { type: 'boolean' }, options)) as typeof TypeBox.Boolean,
  Null: ((options?: Options) => create('Null', { type: 'null' }, options)) as typeof TypeBox.Null,
  Literal: ((value: unknown, options?: Options) => create('Literal', { type: literalType(value), const: value }, options)) as typeof TypeBox.Literal,
  Array: ((items: object, options?: Options) => create('Array', { type: 'array', items }, options)) as typeof TypeBox.Array,
  Union: ((anyOf: readonly object[], options?: Options) => create('Union', { anyOf }, options)) as typeof TypeBox.Union,
  Enum: ((values: unknown, options?: Options) => {
    if (!Array.isArray(values)) throw new TypeError('Type.Enum: pass the values as an array (this builder does not read TypeScript enums)');
    return create('Enum', { enum: values }, options);
  }) as typeof TypeBox.Enum,
  Object: ((properties: Record<string, unknown>, options?: Options) => {
    const required = Object.getOwnPropertyNames(properties).filter((key) => !isOptional(properties[key]));
    return create('Object', { type: 'object', ...(required.length > 0 ? { required } : {}), properties }, options);
  }) as typeof TypeBox.Object,
  Record: ((key: object, value: object, options?: Options) => {
    // A string key with no pattern of its own: any property name (TypeBox's `^.*$`).
    const keyKind = (key as { '~kind'?: unknown })['~kind'];
    if (keyKind !== 'String' || 'pattern' in key || 'format' in key) throw new TypeError('Type.Record: only a plain Type.String() key is supported here');
    return update(create('Record', { type: 'object', patternProperties: { '^.*$': value } }, undefined), {}, options);
  }) as typeof TypeBox.Record,
  Optional: ((schema: object) => update(schema, { '~optional': true })) as typeof TypeBox.Optional,
};
