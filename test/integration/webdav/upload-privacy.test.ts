// A save in progress shows a pupil nothing of the new content: while a
// teacher's PUT over a page that denies pupils is paused mid-body, the pupil,
// who may list and read the page's folder, opens every file of the share over
// SMB under every share mode, and nothing readable holds bytes of the save,
// and nothing that appeared since the save began is readable at all. The save
// then completes with the page's owner and DACL as they were.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SmbClient, TEMP_NAME } from '../../../src/smb/index.js';
import { startService, type RunningService } from '../../support/service.js';
import { readTestbedEnv, type TestbedEnv } from '../../testbed/env.js';
import { removeTree } from '../smb/testbed.js';
import { account } from './dav-client.js';
import {
  assertPupilReadsNothingNew, markedBody, pausedPut, pupilFolder, settledEntries, shareEntries, teachersPage, type PupilFolder,
} from './save-exposure.js';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('a save paused mid-body exposes no readable entry', () => {
  let env: TestbedEnv;
  let service: RunningService;
  const smb = new SmbClient();
  let folder: PupilFolder;
  const dir = `_h26privacy-${randomBytes(4).toString('hex')}`;

  before(async () => {
    env = await readTestbedEnv();
    service = await startService({ smb: { shares: [{ name: 'schule' }] } });
    folder = await pupilFolder(smb, env, dir);
  });
  after(async () => {
    try {
      await service.stop();
      if (folder) await removeTree(folder.admin, dir);
    } finally {
      await smb.close();
    }
  });

  // One block of the service's upload is 1 MiB: a page fits in one, a large file does not, and its first blocks wait
  // in a staging file beside the target while the rest comes: the probe must meet that file, or it proves nothing.
  for (const { what, size, pauseAt, staged } of [
    { what: 'a 4 KiB page', size: 4 * KiB, pauseAt: 2 * KiB, staged: false },
    { what: 'a 3 MiB file', size: 3 * MiB, pauseAt: 2 * MiB, staged: true },
  ]) {
    it(`${what}, paused after ${pauseAt} bytes: the pupil reads no new byte, and the save keeps owner and DACL`, async () => {
      // anna's own page: the owner check is then not about who saves (ReplaceFile hands the owner to the editor).
      const { path: page, sd } = await teachersPage(folder, `klausur-${size}.md`, Buffer.from('# Klausur\n\nAufgabe 1\n'));
      const marker = `NEU-${randomBytes(6).toString('hex')}`;
      const body = markedBody(marker, size);
      const before = new Set((await shareEntries(folder)).map((e) => e.path));

      const put = pausedPut(service, account(env, 'anna'), page, body, pauseAt);
      try {
        await put.paused;
        const during = await settledEntries(folder);
        const staging = during.filter((e) => TEMP_NAME.test(e.name) && !before.has(e.path));
        assert.equal(staging.length, staged ? 1 : 0, `staging files while the save is paused: ${staging.map((e) => e.path).join(', ') || 'none'}`);
        await assertPupilReadsNothingNew(folder, during, before, marker, `paused after ${pauseAt} of ${size} bytes`);
      } finally {
        await put.resume();
      }
      const answer = await put.answer;
      console.log(`the save answered ${answer.status} ${answer.text}`);
      assert.equal(answer.status, 204);
      assert.ok((await folder.admin.readFile(page)).equals(body), `${page} holds the new content`);
      const now = await folder.admin.getSecurity(page);
      assert.equal(now.owner, sd.owner, 'the owner stays');
      assert.deepEqual(now.dacl, sd.dacl, 'the same ACEs in the same order, with their flags');
      const left = (await shareEntries(folder)).filter((e) => !before.has(e.path)).map((e) => e.path);
      assert.deepEqual(left, [], 'the save leaves no new entry');
    });
  }
});
