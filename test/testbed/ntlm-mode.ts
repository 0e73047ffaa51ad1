// The testbed's NTLM mode, chosen by `up --ntlm=on|off` (on when not given): `off` makes the file server refuse
// NTLM, and everything that logs on to it (the services the tests start, the tests' own SMB sessions, Samba's
// command-line clients, the seeding) then uses Kerberos alone. env.json records the mode (`smb.ntlm`).

export type NtlmMode = 'on' | 'off';

/** The options of `up`; throws with the usage for anything else. */
export function parseUpOptions(args: readonly string[]): { ntlm: NtlmMode } {
  let ntlm: NtlmMode = 'on';
  for (const arg of args) {
    const value = /^--ntlm=(on|off)$/.exec(arg)?.[1];
    if (value === undefined) throw new Error(`unknown option ${arg} of up (usage: up [--ntlm=on|off])`);
    ntlm = value as NtlmMode;
  }
  return { ntlm };
}

/** The arguments of cli.js that bring the testbed up again in the mode it runs in (a test that stopped a server). */
export function upAgain(ntlm: NtlmMode | undefined): string[] {
  return ['up', `--ntlm=${ntlm ?? 'on'}`];
}
