// The testbed's NTLM mode, chosen by `up --ntlm=on|off` (on when not given; up-options.ts): `off` makes the file server refuse
// NTLM, and everything that logs on to it (the services the tests start, the tests' own SMB sessions, Samba's
// command-line clients, the seeding) then uses Kerberos alone. env.json records the mode (`smb.ntlm`).

export type NtlmMode = 'on' | 'off';
