// `fileproxy doctor --config <file>`: checks the installation, one line per
// check with a fix for each failure; exit 1 on any failure.
import { formatResult } from '../doctor/check.js';
import { runDoctor } from '../doctor/run.js';
import { configFileArgument } from './args.js';

export async function runDoctorCommand(args: string[]): Promise<number> {
  const file = configFileArgument(args);
  if (file === undefined) {
    process.stderr.write('usage: fileproxy doctor [--config <file>]\n');
    return 2;
  }
  let failures = 0;
  for await (const result of runDoctor(file)) {
    if (result.status === 'fail') failures++;
    process.stdout.write(`${formatResult(result)}\n`);
  }
  process.stdout.write(failures === 0 ? 'all checks passed\n' : `${failures} check(s) failed\n`);
  return failures === 0 ? 0 : 1;
}
