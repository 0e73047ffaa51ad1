// The options of the testbed's `up`, and the arguments that bring a stopped testbed back as it ran.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUpOptions, upAgain } from '../testbed/up-options.js';

describe('testbed up options', () => {
  it('default to NTLM on and the full JIT, and take each option in any order', () => {
    assert.deepEqual(parseUpOptions([]), { ntlm: 'on', esJit: 'full' });
    assert.deepEqual(parseUpOptions(['--es-jit=client', '--ntlm=off']), { ntlm: 'off', esJit: 'client' });
  });

  it('refuse anything else, naming the usage', () => {
    for (const arg of ['--es-jit=c2', '--ntlm', 'client', '--jit=client']) {
      assert.throws(() => parseUpOptions([arg]), /usage: up \[--ntlm=on\|off\] \[--es-jit=full\|client\]/);
    }
  });

  it('bring the testbed back in the NTLM mode and with the JIT env.json records (full when it records none)', () => {
    assert.deepEqual(upAgain({ smb: { ntlm: 'off' }, es: { jit: 'client' } }), ['up', '--ntlm=off', '--es-jit=client']);
    assert.deepEqual(upAgain({ smb: { ntlm: 'on' }, es: {} }), ['up', '--ntlm=on', '--es-jit=full']);
  });
});
