// Console operators from the command line (on a machine with DATABASE_URL):
//   npm run operator -- create <name> --role admin|viewer   password from OPERATOR_PASSWORD or asked on the terminal
//   npm run operator -- list
//   npm run operator -- disable <name>                       ends their sessions at once
// `create` on an existing name sets a new password and role (the recovery path for a lost password).
import '@mediagen/runtime/node-version'; // first: one readable line on a Node older than 24.11
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '@mediagen/config';
import { createDb, disableOperator, listOperators, newId, upsertOperator } from '@mediagen/db';
import { hashPassword, MIN_PASSWORD_LENGTH } from '@mediagen/console';

async function askPassword(): Promise<string> {
  if (process.env.OPERATOR_PASSWORD) return process.env.OPERATOR_PASSWORD;
  if (!process.stdin.isTTY) throw new Error('set OPERATOR_PASSWORD, or run in a terminal to be asked');
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  // Hide what is typed: readline echoes through _writeToOutput.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => undefined;
  process.stdout.write('Password: ');
  const pw = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stdout.write('\n');
  return pw;
}

/** Changes made from the shell: no signed-in person, so the trail names the tool. */
const CLI_AUDIT = { actor: { type: 'system', name: 'operator-cli' } } as const;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { role: { type: 'string', default: 'viewer' } } });
  const [cmd, name] = positionals;
  const db = createDb(loadConfig().DATABASE_URL, { poolSize: 2 });
  try {
    if (cmd === 'create' && name) {
      if (values.role !== 'admin' && values.role !== 'viewer') throw new Error('--role is admin or viewer');
      const password = await askPassword();
      if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
      await upsertOperator(db, { id: newId('op'), name, role: values.role, passwordHash: await hashPassword(password) }, CLI_AUDIT);
      console.log(`operator ${name} (${values.role}) ready: sign in at /console/login`);
    } else if (cmd === 'list') {
      for (const o of await listOperators(db)) console.log(`${o.name}\t${o.role}\t${o.disabledAt ? 'disabled' : 'active'}`);
    } else if (cmd === 'disable' && name) {
      if (!(await disableOperator(db, name, CLI_AUDIT))) throw new Error(`no operator ${name}`);
      console.log(`operator ${name} disabled; their sessions ended`);
    } else {
      throw new Error('usage: operator create <name> --role admin|viewer | operator list | operator disable <name>');
    }
  } finally {
    await db.$disconnect();
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
