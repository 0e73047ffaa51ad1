/**
 * Wiki visibility per share (spec §5, the second permission stage): a wiki can be switched off, and limited to
 * members of access groups. Global admins set it through `/edu-api/admin/wiki-visibility`; the ldap-resolver keeps
 * it and hands each search only the shares its caller may see. A share without settings is active for everyone
 * (the wiki feature is on by default).
 */
import { characterCount } from '../ldap/login-name.js';

/** The second permission stage of one share's wiki (spec §5): is it on, and for whom. */
export interface WikiVisibility {
  active: boolean;
  /** Directory group names; empty = every user. */
  access_groups: string[];
}

export interface ShareVisibility extends WikiVisibility {
  share: string;
}

const DEFAULT_VISIBILITY: Readonly<WikiVisibility> = { active: true, access_groups: [] };
const MAX_ACCESS_GROUPS = 100;
const MAX_GROUP_NAME_LENGTH = 256;

/** A visibility update that breaks a rule; `field` names the offending field (answer 400). */
export class VisibilityRequestError extends Error {
  override readonly name = 'VisibilityRequestError';
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
  }
}

/**
 * Validates the body of `PUT /edu-api/admin/wiki-visibility/{share}`: `{ "active": boolean, "access_groups"?: [names] }`.
 * Names are trimmed; repeats (compared case-insensitively, as the directory does) count once.
 */
export function parseVisibilityUpdate(body: unknown): WikiVisibility {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new VisibilityRequestError('body', 'must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => key !== 'active' && key !== 'access_groups');
  if (unknown !== undefined) throw new VisibilityRequestError(unknown, 'is not a wiki visibility field');
  if (typeof fields['active'] !== 'boolean') throw new VisibilityRequestError('active', 'is required and must be true or false');
  const groups = fields['access_groups'] ?? [];
  if (!Array.isArray(groups)) throw new VisibilityRequestError('access_groups', 'must be a list of group names');
  if (groups.length > MAX_ACCESS_GROUPS) {
    throw new VisibilityRequestError('access_groups', `must have at most ${MAX_ACCESS_GROUPS} entries`);
  }
  const names = new Map<string, string>();
  groups.forEach((group: unknown, index) => {
    const field = `access_groups[${index}]`;
    if (typeof group !== 'string') throw new VisibilityRequestError(field, 'must be a string');
    const name = group.trim();
    if (name === '') throw new VisibilityRequestError(field, 'must not be blank');
    if (characterCount(name) > MAX_GROUP_NAME_LENGTH) {
      throw new VisibilityRequestError(field, `must be at most ${MAX_GROUP_NAME_LENGTH} characters`);
    }
    if (/\p{Cc}/u.test(name)) throw new VisibilityRequestError(field, 'must not contain control characters');
    if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  });
  return { active: fields['active'], access_groups: [...names.values()] };
}

/** Where the settings are kept between restarts. */
export interface VisibilityStore {
  /** Settings by share name; {} when nothing was stored yet. */
  load(): Promise<Record<string, WikiVisibility>>;
  save(settings: Record<string, WikiVisibility>): Promise<void>;
}

/** The settings of the configured shares. Shares are matched case-insensitively, as SMB does. */
export class WikiVisibilitySettings {
  private saving: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: VisibilityStore,
    /** Configured share names in config order, as spelled in config.yml. */
    private readonly shares: readonly string[],
    private readonly settings: Map<string, WikiVisibility>,
  ) {}

  /** Loads the stored settings; entries of shares no longer configured are kept in the file but not used. */
  static async open(store: VisibilityStore, shares: readonly string[]): Promise<WikiVisibilitySettings> {
    const stored = await store.load();
    const settings = new Map(Object.entries(stored).map(([share, value]) => [share.toLowerCase(), value]));
    return new WikiVisibilitySettings(store, shares, settings);
  }

  /** The configured spelling of a share name, or undefined for a share that is not configured. */
  shareNamed(name: string): string | undefined {
    return this.shares.find((share) => share.toLowerCase() === name.toLowerCase());
  }

  get(share: string): WikiVisibility {
    return this.settings.get(share.toLowerCase()) ?? DEFAULT_VISIBILITY;
  }

  list(): ShareVisibility[] {
    return this.shares.map((share) => ({ share, ...this.get(share) }));
  }

  /** Stores new settings for a share (durably, one write at a time); null for a share that is not configured. */
  async set(name: string, visibility: WikiVisibility): Promise<ShareVisibility | null> {
    const share = this.shareNamed(name);
    if (share === undefined) return null;
    const write = this.saving.then(async () => {
      const next = new Map(this.settings).set(share.toLowerCase(), visibility);
      await this.store.save(Object.fromEntries([...next].map(([key, value]) => [this.shareNamed(key) ?? key, value])));
      this.settings.set(share.toLowerCase(), visibility);
    });
    this.saving = write.catch(() => undefined);
    await write;
    return { share, ...visibility };
  }

  /** Shares whose wiki is active and whose access groups (if any) include one of `groupNames`. */
  visibleShares(groupNames: readonly string[]): string[] {
    const member = new Set(groupNames.map((name) => name.toLowerCase()));
    return this.shares.filter((share) => {
      const { active, access_groups } = this.get(share);
      return active && (access_groups.length === 0 || access_groups.some((group) => member.has(group.toLowerCase())));
    });
  }
}
