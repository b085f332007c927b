/** A demo step that could not be carried out (the CLI prints the message and exits 1). */
export class DemoError extends Error {
  override readonly name = 'DemoError';
}
