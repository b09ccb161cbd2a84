/** A refused account change (creating what exists, naming what does not); the CLI exits 1 with its message. */
export class AccountError extends Error {
  constructor(
    readonly reason: 'exists' | 'missing',
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}
