// The directory the testbed's DC serves: realm, accounts and groups. Fixed passwords on purpose — it is a
// throw-away loopback testbed, and stable values keep re-runs and half-finished runs consistent.

export const realm = 'EDU.TEST';
export const netbiosDomain = 'EDU';
export const baseDn = 'DC=edu,DC=test';
/** NetBIOS/host name of the DC; its FQDN is the name in the LDAPS certificate Samba generates. */
export const dcHostName = 'dc1';
/** The DC listens on loopback only. */
export const dcAddress = '127.0.0.1';
export const ldapsUrl = `ldaps://${dcAddress}:636`;
/**
 * The DC's own DNS server (Samba's internal one, with the records a DC registers, such as _kerberos._tcp.edu.test)
 * listens here: not port 53, which a host's own resolver may hold. The machine's resolver files stay as they are.
 */
export const dcDnsPort = 1053;
/** That server as kerberos.dns_servers names it. */
export const dcDnsServer = `${dcAddress}:${dcDnsPort}`;

export const dcAdmin = { user: 'Administrator', password: 'Testbed-Admin-2026!' } as const;

export const globalAdminGroup = 'Schul-Admins';
export const mathTeachersGroup = 'Lehrkräfte Mathe';

/** Groups the testbed creates (Domain Users exists in every domain). */
export const groupNames = ['Lehrer', mathTeachersGroup, 'Schueler', 'Verwaltung', globalAdminGroup] as const;
export type GroupName = (typeof groupNames)[number];

export interface AccountSpec {
  password: string;
  groups: GroupName[];
}

export const admin = { user: 'fpadmin', password: 'Fpadmin-Pass-2026!' } as const;
export const indexer = { user: 'svc-indexer', password: 'Indexer-Pass-2026!' } as const;

/** Every account the testbed creates; anna and ben share `Lehrer`, anna is also a maths teacher. */
export const accounts: Record<string, AccountSpec> = {
  anna: { password: 'Anna-Pass-2026!', groups: ['Lehrer', mathTeachersGroup] },
  ben: { password: 'Ben-Pass-2026!', groups: ['Lehrer'] },
  carla: { password: 'Carla-Pass-2026!', groups: ['Schueler'] },
  dora: { password: 'Dora-Pass-2026!', groups: ['Verwaltung'] },
  [admin.user]: { password: admin.password, groups: [globalAdminGroup] },
  [indexer.user]: { password: indexer.password, groups: [] },
};

/** Well-known SIDs used in ACLs next to the domain's own principals. */
export const wellKnownSids = {
  administrators: 'S-1-5-32-544',
  system: 'S-1-5-18',
} as const;

/** Relative id of the built-in `Domain Users` group inside the domain SID. */
export const domainUsersRid = 513;
