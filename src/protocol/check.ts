// Owns checking a value that came over the wire against its protocol schema: each schema is
// compiled once, and a mismatch is put in words with the path of the first offending value.
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';

/** A compiled protocol schema. */
export interface WireCheck<T> {
  /** True when `value` matches the schema. */
  matches(value: unknown): value is T;
  /**
   * The first mismatch in words, led by its JSON Pointer path
   * (`` `/expiresAt` is missing ``, `` `/messages/0/size` must be integer ``),
   * or `undefined` when `value` matches.
   */
  mismatch(value: unknown): string | undefined;
}

function describe(error: TLocalizedValidationError): string {
  if (error.keyword === 'required') {
    const [property = ''] = error.params.requiredProperties;
    return `\`${error.instancePath}/${property}\` is missing`;
  }
  return `\`${error.instancePath || '/'}\` ${error.message}`;
}

/** Compiles `schema` (once, at the call) into a {@link WireCheck}. */
export function wireCheck<const Schema extends TSchema>(schema: Schema): WireCheck<Static<Schema>> {
  const validator = Compile(schema);
  return {
    matches: (value): value is Static<Schema> => validator.Check(value),
    mismatch(value) {
      if (validator.Check(value)) return undefined;
      const [first] = validator.Errors(value);
      return first ? describe(first) : 'it does not match';
    },
  };
}
