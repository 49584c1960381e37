/**
 * `npm run set-password`: stores a new login password (its scrypt hash) in DATA_DIR/secrets/.
 * Every token obtained with an earlier password stops working, in a running service too: exactly
 * those, however close in time, since each token carries a stamp of the password it was issued
 * under (src/auth/password-state.ts). A login notices the change at once, a token check within a
 * second. The password is read from standard input — piped, or typed at
 * a prompt without echo — never from the command line, where `ps` and shell history would
 * keep it.
 */
import { createInterface } from 'node:readline';
import { storePassword } from '../src/auth/secrets.js';
import { loadConfig } from '../src/config.js';
import { newPasswordProblem } from '../src/auth/password.js';

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Prompts on the terminal with echo turned off. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    const write = (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput.bind(rl);
    let muted = false;
    (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text: string) => {
      if (!muted) write(text);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  let password: string;
  if (process.stdin.isTTY) {
    password = await prompt('New password: ');
    const again = await prompt('Repeat it: ');
    if (again !== password) throw new Error('the two passwords differ; nothing was changed');
  } else {
    password = await readPiped();
  }
  const problem = newPasswordProblem(password);
  if (problem !== undefined) throw new Error(`the password ${problem}; nothing was changed`);
  await storePassword(config.dataDir, password);
  process.stdout.write(`Password stored in ${config.dataDir}/secrets/password.json; earlier tokens are revoked.\n`);
  if (config.appPassword !== undefined) {
    process.stdout.write('Note: APP_PASSWORD is set in this environment and takes precedence over the stored password.\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`set-password: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
