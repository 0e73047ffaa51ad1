/**
 * Whether the proxies that serve a share in common agree on what they share beyond the index (README, More than one
 * machine): doctor's line over the announcements of the running proxies (src/doctor/proxy-announcement.ts). Two
 * proxies of one share that disagree break the guarantees of one proxy without an error anywhere: an event id
 * accepted by one is accepted again by the other when only one of them shares state or their state lives under
 * different prefixes; the shared window is pruned to the size of whichever proxy prunes; a proxy of an older build
 * stops writing once the index has a newer mapping.
 */
import { warn, ok, skip, type CheckResult } from './check.js';
import { RECENT_MS, type ProxyAnnouncement } from './proxy-announcement.js';

export const PROXY_AGREEMENT = 'proxies of the same shares';

interface Setting {
  /** As config.yml names it (the version: the package's). */
  name: string;
  value(proxy: ProxyAnnouncement): string;
  /** Whether two proxies must agree on it: some settings matter only while both share their state. */
  mustAgree(a: ProxyAnnouncement, b: ProxyAnnouncement): boolean;
  fix: string;
}

const bothShare = (a: ProxyAnnouncement, b: ProxyAnnouncement) => a.shared_state !== 'none' && b.shared_state !== 'none';

const SETTINGS: readonly Setting[] = [
  {
    name: 'cluster.shared_state',
    value: (p) => p.shared_state,
    mustAgree: () => true,
    fix: 'set cluster.shared_state: elasticsearch on every proxy of the same shares and restart them (README, More than one machine): a proxy with none keeps its own webhook event ids and clients, so an event accepted by another is accepted again there',
  },
  {
    name: 'cluster.index_prefix',
    value: (p) => p.cluster_index_prefix,
    mustAgree: bothShare,
    fix: 'give every proxy of the same shares the same cluster.index_prefix and restart them: each prefix holds a shared state of its own, so an event accepted under one is accepted again under the other',
  },
  {
    name: 'cluster.event_ids',
    value: (p) => p.event_ids,
    mustAgree: bothShare,
    fix: 'set the same cluster.event_ids on every proxy of the same shares and restart them (and route webhooks by key at the balancer for routed_by_key): a proxy that checks event ids in its own ring does not see those accepted in the cluster, nor the other way round',
  },
  {
    name: 'webhooks.dedupe_size',
    value: (p) => String(p.dedupe_size),
    mustAgree: bothShare,
    fix: 'set the same webhooks.dedupe_size on every proxy of the same shares and restart them: the shared event ids are pruned to the window of whichever proxy prunes',
  },
  {
    name: 'version',
    value: (p) => p.version,
    mustAgree: () => true,
    fix: 'upgrade the proxies of the same shares together: one of an older build stops writing once the index has a newer mapping',
  },
];

/** Two proxies that serve `shares` in common and say different things of `setting`. */
export interface Disagreement {
  setting: string;
  proxies: readonly [ProxyAnnouncement, ProxyAnnouncement];
  shares: readonly string[];
}

/** The shares two proxies both serve (share and server names compare case-insensitively, as SMB's do). */
function commonShares(a: ProxyAnnouncement, b: ProxyAnnouncement): string[] {
  const ofB = new Set(b.shares.map((s) => s.toLowerCase()));
  return a.shares.filter((s) => ofB.has(s.toLowerCase()));
}

/** Every pair of proxies with a share in common that disagree, per setting, in the order of SETTINGS and of `proxies`. */
export function disagreements(proxies: readonly ProxyAnnouncement[]): Disagreement[] {
  const found: Disagreement[] = [];
  for (const setting of SETTINGS) {
    proxies.forEach((a, i) => {
      for (const b of proxies.slice(i + 1)) {
        const shares = commonShares(a, b);
        if (shares.length > 0 && setting.mustAgree(a, b) && setting.value(a) !== setting.value(b)) {
          found.push({ setting: setting.name, proxies: [a, b], shares });
        }
      }
    });
  }
  return found;
}

/** Doctor's lines over the recent announcements: one warning per setting on which proxies of a share disagree. */
export function proxyAgreement(recent: readonly ProxyAnnouncement[], unreadable: readonly string[] = []): CheckResult[] {
  const minutes = RECENT_MS / 60_000;
  const unread = unreadable.length === 0 ? '' : `; ${unreadable.length} announcement(s) of another shape left out (${unreadable.join(', ')}: a build that announces otherwise)`;
  if (recent.length === 0) {
    return [skip(PROXY_AGREEMENT, `no proxy announced itself in the last ${minutes} minutes (the service is not running, or cannot write to Elasticsearch: its log says why)${unread}`)];
  }
  const found = disagreements(recent);
  const names = recent.map((p) => p.proxy).sort().join(', ');
  if (found.length === 0) {
    return [ok(PROXY_AGREEMENT, `${recent.length} proxy(ies) seen in the last ${minutes} minutes (${names}); those that serve a share in common agree on ${SETTINGS.map((s) => s.name).join(', ')}${unread}`)];
  }
  return SETTINGS.flatMap((setting) => {
    const pairs = found.filter((d) => d.setting === setting.name);
    if (pairs.length === 0) return [];
    const said = (p: ProxyAnnouncement) => `${p.proxy} (${setting.value(p)})`;
    const detail = pairs.map(({ proxies: [a, b], shares }) => `${said(a)} and ${said(b)} both serve ${shares.join(', ')}`).join('; ');
    return [warn(PROXY_AGREEMENT, `${setting.name} differs: ${detail}${unread}`, setting.fix)];
  });
}
