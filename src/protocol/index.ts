// The protocol: schemas, error codes and webhook signatures shared by server, client and fixture.
export * from './check.js';
export * from './clock.js';
export * from './errors.js';
export * from './schemas.js';
export * from './signature.js';
