// A forced reindex's listing reads each page's bytes in the open that reads its security descriptor
// (src/indexing/smb-reader/wiki-reads.ts, withContent). Where that open fails, the page must come out as it does
// without content: listed with the same version when its security descriptor can be read, and then read on its own,
// which says why it cannot be (denied, or held by another program), as a pass has always said.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { PageVersion } from '../../../src/indexing/listing.js';
import { listWikiFolder, readPage } from '../../../src/indexing/smb-reader/wiki-reads.js';
import { Access, Disposition, SmbClient, type SmbShare } from '../../../src/smb/index.js';
import { FileHandle } from '../../../src/smb/open.js';
import { testbedShare } from '../../support/smb-logons.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { smbcacls } from '../smb/testbed.js';
import { removeOnDisk } from '../webdav/write-oracle/fixture.js';

describe('a forced reindex\'s listing with the pages\' bytes', () => {
  let env: TestbedEnv;
  const smb = new SmbClient();
  /** The other program holding a page: its own pool, so its own connection. */
  const otherSmb = new SmbClient();
  let admin: SmbShare;
  let indexer: SmbShare;
  const dir = `_listing-${randomBytes(4).toString('hex')}`;
  const wiki = `${dir}/.wiki`;
  const pages = {
    open: '# Offen\n\nElternabend am Montag.\n',
    /** Longer than one read of the listing's open (64 KiB). */
    long: `# Lang\n\n${'Zeile mit Text.\n'.repeat(5_000)}`,
    /** The indexer account may read its security descriptor, not its bytes. */
    aclOnly: '# Nur die ACL\n\nGeheim.\n',
    /** Held open by another program that shares nothing. */
    held: '# Gesperrt\n\nIn Arbeit.\n',
  };
  const pathOf = (name: keyof typeof pages) => `${wiki}/${name}.md`;

  before(async () => {
    env = await readTestbedEnv();
    admin = testbedShare(smb, env, env.dc_admin, 'schule');
    indexer = testbedShare(smb, env, env.indexer, 'schule');
    await admin.mkdir(wiki, { recursive: true });
    for (const [name, content] of Object.entries(pages)) await admin.writeFile(pathOf(name as keyof typeof pages), content);
    const indexerSid = env.users[env.indexer.user]!.sid;
    // READ_CONTROL, SYNCHRONIZE and FILE_READ_ATTRIBUTES, without FILE_READ_DATA.
    smbcacls('schule', pathOf('aclOnly'), ['--sddl', '--set', `D:P(A;;FA;;;BA)(A;;0x120080;;;${indexerSid})`]);
  });
  after(async () => {
    try {
      await removeOnDisk(env, 'schule', dir);
    } finally {
      await Promise.all([smb.close(), otherSmb.close()]);
    }
  });

  /** The `.wiki/` folder's pages by name, listed with or without content. */
  async function listed(withContent: boolean): Promise<Map<string, PageVersion>> {
    const listing = await listWikiFolder(indexer, dir, withContent);
    assert.equal(listing.state, 'listed');
    assert.ok(listing.state === 'listed' && listing.wiki?.listing.state === 'listed');
    return new Map(listing.wiki.listing.pages.map((page) => [page.name, page]));
  }

  async function holdingWithoutSharing(path: string, during: () => Promise<void>): Promise<void> {
    const other = testbedShare(otherSmb, env, env.dc_admin, 'schule');
    const handle = await other.withTree((tree) => FileHandle.open(tree, {
      name: path.replaceAll('/', '\\'), desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES, disposition: Disposition.OPEN, shareAccess: 0,
    }));
    try {
      await during();
    } finally {
      await handle.close();
    }
  }

  it('gives a page\'s bytes with its version, as reading it on its own would', async () => {
    const [withContent, without] = [await listed(true), await listed(false)];
    const page = withContent.get('open.md')!;
    assert.equal(Buffer.from(page.facts.content!).toString(), pages.open);
    assert.equal(page.version, without.get('open.md')!.version);
    assert.equal(without.get('open.md')!.facts.content, undefined, 'a listing without content reads no bytes');
    const read = await readPage(indexer, { server: env.smb.host, share: 'schule', path: pathOf('open') }, page.facts);
    assert.ok(read.status === 'read');
    assert.equal(read.page.version, page.version);
  });

  it('leaves out the bytes of a page longer than one read; it is read on its own, whole', async () => {
    const page = (await listed(true)).get('long.md')!;
    assert.equal(page.facts.content, undefined);
    const read = await readPage(indexer, { server: env.smb.host, share: 'schule', path: pathOf('long') }, page.facts);
    assert.ok(read.status === 'read');
    assert.equal(Buffer.from(read.page.content).toString(), pages.long);
  });

  it('lists a page whose bytes the indexer account may not read, without them, and reading it says denied', async () => {
    const [withContent, without] = [await listed(true), await listed(false)];
    const page = withContent.get('aclOnly.md')!;
    assert.equal(page.facts.content, undefined);
    assert.equal(page.version, without.get('aclOnly.md')!.version);
    const read = await readPage(indexer, { server: env.smb.host, share: 'schule', path: pathOf('aclOnly') }, page.facts);
    assert.equal(read.status, 'denied');
  });

  it('lists a page another program holds without sharing, without its bytes, and reading it fails for now', async () => {
    const version = (await listed(false)).get('held.md')!.version;
    await holdingWithoutSharing(pathOf('held'), async () => {
      const page = (await listed(true)).get('held.md')!;
      assert.equal(page.facts.content, undefined);
      assert.equal(page.version, version);
      const read = await readPage(indexer, { server: env.smb.host, share: 'schule', path: pathOf('held') }, page.facts);
      assert.equal(read.status, 'failed');
    });
  });
});
