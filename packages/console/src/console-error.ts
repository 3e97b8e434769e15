/** An error page with a status and a sentence that says what to do. */
export class ConsoleError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}
