import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../../src/http/http-error.js';
import { SmbError } from '../../../src/smb/index.js';
import { couldBeShortName, refuseShortNames, type LongNameLookup } from '../../../src/webdav/short-names.js';

/** A share as the file server would answer: folder -> (spelling, in upper case -> long names). */
function lookupIn(answers: Record<string, Record<string, string[]>>): { lookup: LongNameLookup; asked: string[] } {
  const asked: string[] = [];
  const lookup: LongNameLookup = async (folder, name) => {
    asked.push(`${folder}|${name}`);
    if (folder === 'gesperrt') throw new SmbError('ACCESS_DENIED', 'denied');
    return answers[folder]?.[name.toUpperCase()] ?? [];
  };
  return { lookup, asked };
}

const share = {
  '': { 'JAXQN8~S.TXT': ['Jahresplanung-Klassenfahrt.txt'], '_DDHVH~1': ['.wiki'], 'AB~1.TXT': ['AB~1.TXT'], 'KLASSE~1': ['Klasse 5a'] },
  'Klasse 5a': { 'NOTEN~1.CSV': ['Noten 2026.csv'] },
};

async function refusal(path: string, lookup: LongNameLookup): Promise<HttpError> {
  try {
    await refuseShortNames(path, lookup);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  assert.fail(`${path} was not refused`);
}

describe('8.3 short names in request paths', () => {
  it('knows the shape: a ~ within at most 8 characters, then at most a dot and 3, in any letter case', () => {
    for (const name of ['JAXQN8~S.TXT', 'jaxqn8~s.txt', '_DDHVH~1', 'JAHRES~1.TXT', 'A~1', '~', 'AB~1.TX', 'PROGRA~1']) {
      assert.equal(couldBeShortName(name), true, name);
    }
    for (const name of ['Jahresplanung-Klassenfahrt.txt', 'Aushang.txt', '.wiki', 'JAXQN8~S.TEXT', 'JAXQN8~SX.TXT', 'AB.C~1', 'A~1.B.C', '~$report.docx', 'README']) {
      assert.equal(couldBeShortName(name), false, name);
    }
  });

  it('refuses a short name with 400, naming the long name it stands for, at any depth', async () => {
    const { lookup } = lookupIn(share);
    const file = await refusal('JAXQN8~S.TXT', lookup);
    assert.equal(file.status, 400);
    assert.equal(file.code, 'short_name');
    assert.match(file.message, /'JAXQN8~S\.TXT' .* short name of 'Jahresplanung-Klassenfahrt\.txt'.*'Jahresplanung-Klassenfahrt\.txt'/);
    const wiki = await refusal('_ddhvh~1/seite.md', lookup);
    assert.match(wiki.message, /short name of '\.wiki'; name it by its long name \('\.wiki\/seite\.md'\)/);
    const deep = await refusal('Klasse 5a/NOTEN~1.CSV', lookup);
    assert.match(deep.message, /\('Klasse 5a\/Noten 2026\.csv'\)/);
  });

  it('lets pass a long name of the 8.3 shape, a name nothing has, and names without ~ at no cost', async () => {
    const { lookup, asked } = lookupIn(share);
    await refuseShortNames('AB~1.TXT', lookup);
    await refuseShortNames('ab~1.txt', lookup);
    await refuseShortNames('NEU~1.TXT', lookup);
    await refuseShortNames('NEU~1/JAXQN8~S.TXT', lookup);
    await refuseShortNames('Klasse 5a/.wiki/index.md', lookup);
    await refuseShortNames('', lookup);
    assert.deepEqual(asked, ['|AB~1.TXT', '|ab~1.txt', '|NEU~1.TXT', '|NEU~1'], 'below a name nothing has, nothing is asked');
  });

  it('refuses with 403 when the folder cannot be listed to tell', async () => {
    const { lookup } = lookupIn(share);
    const err = await refusal('gesperrt/AB~1.TXT', lookup);
    assert.equal(err.status, 403);
    assert.equal(err.code, 'short_name_unknown');
  });
});
