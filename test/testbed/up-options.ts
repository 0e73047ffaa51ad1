// The options of `up`, and the arguments that bring a stopped testbed back as it ran:
// - `--ntlm=on|off` (on when not given): the file server's NTLM mode (ntlm-mode.ts);
// - `--es-jit=full|client` (full when not given): the JIT of the testbed's Elasticsearch node (elasticsearch.ts).
//   The test scripts ask for `client`; the benchmarks and the demo run on `full`, and `up` restarts a node that
//   runs with the other one.
import type { EsJit } from './elasticsearch.js';
import type { TestbedEnv } from './env.js';
import type { NtlmMode } from './ntlm-mode.js';

export interface UpOptions {
  ntlm: NtlmMode;
  esJit: EsJit;
}

const USAGE = 'up [--ntlm=on|off] [--es-jit=full|client]';

/** The options of `up`; throws with the usage for anything else. */
export function parseUpOptions(args: readonly string[]): UpOptions {
  const options: UpOptions = { ntlm: 'on', esJit: 'full' };
  for (const arg of args) {
    const ntlm = /^--ntlm=(on|off)$/.exec(arg)?.[1];
    const esJit = /^--es-jit=(full|client)$/.exec(arg)?.[1];
    if (ntlm !== undefined) options.ntlm = ntlm as NtlmMode;
    else if (esJit !== undefined) options.esJit = esJit as EsJit;
    else throw new Error(`unknown option ${arg} of up (usage: ${USAGE})`);
  }
  return options;
}

/** The arguments of cli.js that bring the testbed up again as it ran (for a test that stopped a server). */
export function upAgain(env: { smb: Pick<TestbedEnv['smb'], 'ntlm'>; es: Pick<TestbedEnv['es'], 'jit'> }): string[] {
  return ['up', `--ntlm=${env.smb.ntlm}`, `--es-jit=${env.es.jit ?? 'full'}`];
}
