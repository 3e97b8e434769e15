// `mediagen`: the service's command line on the SDK. One file per command in commands/; this file
// dispatches, prints errors and sets the exit code (exit-codes.ts, documented in the README).
import { ApiError } from '../errors';
import { createContext, Io } from './context';
import { EXIT, exitCodeFor, UsageError } from './exit-codes';
import * as image from './commands/image';
import * as video from './commands/video';
import * as task from './commands/task';
import * as tasks from './commands/tasks';
import * as balance from './commands/balance';
import * as models from './commands/models';
import * as cancel from './commands/cancel';
import * as quote from './commands/quote';
import * as batch from './commands/batch';

const COMMANDS = { image, video, quote, batch, task, tasks, cancel, balance, models } as const;

const help = [
  'mediagen: generate videos and images with the media generation task service',
  '',
  ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
  '',
  'Environment: MEDIAGEN_API_KEY (required), MEDIAGEN_BASE_URL (default http://localhost:3000).',
  'Exit codes: 0 done, 1 task failed, 2 usage, 3 bad API key, 4 insufficient balance, 5 refused, 6 unavailable, 7 --timeout passed, 130 interrupted.',
].join('\n');

/** Runs one command line; answers the exit code (exported for tests). */
export async function runCli(argv: string[], io: Io, env: NodeJS.ProcessEnv, interrupt: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(help);
    return name ? EXIT.ok : EXIT.usage;
  }
  const cmd = COMMANDS[name as keyof typeof COMMANDS];
  if (!cmd) {
    io.err(`Unknown command "${name}".\n\n${help}`);
    return EXIT.usage;
  }
  const json = rest.includes('--json');
  try {
    return await cmd.run(createContext(io, env, interrupt), rest);
  } catch (err) {
    const code = err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? EXIT.usage : exitCodeFor(err);
    const message = code === EXIT.timeout ? 'Timed out waiting for the task' : code === EXIT.interrupted ? 'Interrupted' : (err as Error).message;
    if (json) {
      const e = err instanceof ApiError ? { status: err.status, code: err.code, ...err.body } : { error: message };
      io.out(JSON.stringify({ error: e, exitCode: code }));
    } else {
      io.err(`mediagen ${name}: ${message}`);
      if (err instanceof UsageError || code === EXIT.usage) io.err(`usage: ${cmd.usage}`);
      if (err instanceof ApiError && err.requestId) io.err(`request id: ${err.requestId}`);
    }
    return code;
  }
}

export function main(argv: string[]): void {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort(Object.assign(new Error('Interrupted'), { name: 'AbortError' })));
  const io: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`), tty: Boolean(process.stderr.isTTY) };
  runCli(argv, io, process.env, ac.signal).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exitCode = EXIT.unavailable;
    },
  );
}
