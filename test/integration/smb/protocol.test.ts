import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Access,
  CreateOptions,
  Dialect,
  Disposition,
  FileInfoClass,
  type DialectCode,
} from '../../../src/smb/index.js';
import { Connection } from '../../../src/smb/connection.js';
import { SigningAlgorithm } from '../../../src/smb/crypto.js';
import { FileHandle } from '../../../src/smb/open.js';
import { Session } from '../../../src/smb/session.js';
import { Tree } from '../../../src/smb/tree.js';
import { basicInfo, dispositionInfo, renameInfo } from '../../../src/smb/fscc.js';
import { testbedCredentials } from '../../support/smb-logons.js';
import { env, scratchName } from './testbed.js';

const creds = testbedCredentials(env, env.admin);
const connect = (dialects?: readonly DialectCode[]): Promise<Connection> =>
  Connection.connect({ host: env.smb.host, port: env.smb.port, dialects, requestTimeoutMs: 10_000 });

const dialects: [string, DialectCode][] = [
  ['2.0.2', Dialect.SMB202],
  ['2.1', Dialect.SMB210],
  ['3.0', Dialect.SMB300],
  ['3.0.2', Dialect.SMB302],
  ['3.1.1', Dialect.SMB311],
];

describe('SMB2 commands per dialect (signing required by the DC)', () => {
  test('without a restriction the highest common dialect, 3.1.1 with a negotiated cipher and AES-GMAC signing, is used', async () => {
    const conn = await connect();
    try {
      assert.equal(conn.dialect, Dialect.SMB311);
      assert.ok(conn.cipher !== 0);
      assert.equal(conn.signingRequired, true);
      assert.equal(conn.signingAlgorithm, SigningAlgorithm.AES_GMAC, 'the DC chose the first signing algorithm offered');
    } finally {
      conn.close();
    }
  });

  for (const [label, dialect] of dialects) {
    test(`${label}: every command on a signed session`, async () => {
      const conn = await connect([dialect]);
      try {
        assert.equal(conn.dialect, dialect);
        const signing = dialect === Dialect.SMB311 ? SigningAlgorithm.AES_GMAC : dialect >= Dialect.SMB300 ? SigningAlgorithm.AES_CMAC : SigningAlgorithm.HMAC_SHA256;
        assert.equal(conn.signingAlgorithm, signing);
        const session = await Session.setup(conn, creds);
        assert.ok(session.crypto.signingKey);
        await conn.echo();
        const tree = await Tree.connect(session, 'schule');
        const dir = scratchName();
        const openDir = (disposition: number): Promise<FileHandle> =>
          FileHandle.open(tree, {
            name: dir,
            desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES | Access.DELETE,
            disposition,
            createOptions: CreateOptions.DIRECTORY_FILE,
          });
        await (await openDir(Disposition.CREATE)).close();
        const name = `${dir}\\probe.bin`;
        const f = await FileHandle.open(tree, {
          name,
          desiredAccess: Access.GENERIC_READ | Access.GENERIC_WRITE | Access.DELETE,
          disposition: Disposition.CREATE,
          createOptions: CreateOptions.NON_DIRECTORY_FILE,
        });
        // Larger than one 64 KiB credit and, below 2.1, than the whole message limit: split and multi-credit.
        const data = Buffer.alloc(300_000, 0x5a);
        data.write(label);
        await f.write(0, data);
        await f.flush();
        assert.ok((await f.read(0, data.length)).equals(data));
        assert.equal((await f.readChunk(data.length, 10)).length, 0, 'READ past the end returns no data');
        const std = await f.standardInfo();
        assert.equal(std.endOfFile, data.length);
        assert.equal(std.directory, false);
        const all = await f.allInfo();
        assert.equal(all.fileId, await f.internalId());
        assert.equal(all.standard.endOfFile, data.length);
        const mtime = Date.UTC(2023, 5, 1, 12, 0, 0);
        await f.setInfo(FileInfoClass.FileBasicInformation, basicInfo({ lastWriteTime: mtime }));
        assert.equal((await f.basicInfo()).lastWriteTime, mtime);
        await f.setInfo(FileInfoClass.FileRenameInformation, renameInfo(`${dir}\\renamed.bin`, false));
        const sd = await f.securityDescriptor();
        assert.match(sd.owner ?? '', /^S-1-5-/);
        await f.setInfo(FileInfoClass.FileDispositionInformation, dispositionInfo(true));
        await f.close();
        const mkdir = await openDir(Disposition.OPEN);
        assert.deepEqual(await mkdir.queryDirectory(), []);
        await mkdir.setInfo(FileInfoClass.FileDispositionInformation, dispositionInfo(true));
        await mkdir.close();
        await tree.disconnect();
        await session.logoff();
      } finally {
        conn.close();
      }
    });
  }

  test('the encrypted share needs SMB 3.x: 2.1 is refused, 3.0 and 3.1.1 encrypt', async () => {
    for (const dialect of [Dialect.SMB210, Dialect.SMB300, Dialect.SMB311]) {
      const conn = await connect([dialect]);
      try {
        const session = await Session.setup(conn, creds);
        if (dialect < Dialect.SMB300) {
          await assert.rejects(Tree.connect(session, 'verwaltung'), { code: 'ACCESS_DENIED' });
          continue;
        }
        const tree = await Tree.connect(session, 'verwaltung');
        assert.equal(tree.encrypted, true);
        const root = await FileHandle.open(tree, {
          name: '',
          desiredAccess: Access.FILE_READ_DATA | Access.FILE_READ_ATTRIBUTES,
          disposition: Disposition.OPEN,
          createOptions: CreateOptions.DIRECTORY_FILE,
        });
        assert.ok((await root.queryDirectory()).some((e) => e.name === 'Haushalt'));
        await root.close();
      } finally {
        conn.close();
      }
    }
  });

  test('3.0.x secure dialect negotiation detects a NEGOTIATE that differs from what the server signed', async () => {
    const conn = await connect([Dialect.SMB300, Dialect.SMB302]);
    const session = await Session.setup(conn, creds);
    // Pretend a man in the middle had stripped a capability from the NEGOTIATE response.
    conn.serverCapabilities &= ~0x40;
    await assert.rejects(Tree.connect(session, 'schule'), { code: 'PROTOCOL_ERROR' });
    assert.equal(conn.isClosed, true);
  });

  test('an unknown share is BAD_NETWORK_NAME', async () => {
    const conn = await connect();
    try {
      const session = await Session.setup(conn, creds);
      await assert.rejects(Tree.connect(session, 'gibtsnicht'), { code: 'BAD_NETWORK_NAME' });
    } finally {
      conn.close();
    }
  });
});
