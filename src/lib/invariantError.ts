/**
 * A condition paymirror's own code guarantees did not hold: a bug, or the database changed
 * under a statement by hand. Never bad input from outside (that has its own typed errors), so
 * nothing catches it by kind: it fails the operation and is logged with its stack.
 */
export class InvariantError extends Error {
  override readonly name = 'InvariantError';
}
