// The protocol: schemas, error codes, webhook signatures and the clock seam shared by server,
// client and fixture.
// Checking values against the schemas (check.ts, with TypeBox's compiler) is imported from its
// own module by the client and the fixture: the server never needs it, so it does not load it.
export * from './clock.js';
export * from './errors.js';
export * from './schemas.js';
export * from './signature.js';
