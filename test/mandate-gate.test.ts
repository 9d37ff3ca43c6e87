// The gate between an agency's changes on behalf and the changes of its mandate (src/http/mandate-gate.ts): a call is
// admitted only under the mandate as it stands once no change of it is under way, or its caller reads the mandate again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MandateGate } from '../src/http/mandate-gate.js';

describe('mandate gate', () => {
  it('a revocation that began and ended while a call was reading its mandate sends the call back to read it again', async () => {
    const gate = new MandateGate();
    const seen = gate.changesSeen; // the call, before it reads its mandate (still active)
    let revoked = false;
    await gate.exclusive('mdt_1', async () => { revoked = true; }); // no call admitted yet: nothing to wait for
    assert.equal(revoked, true);
    assert.equal(await gate.enter('mdt_1', seen), false, 'the mandate the call read is stale');
    assert.equal(await gate.enter('mdt_1', gate.changesSeen), true, 'read again after the change, it is admitted');
    gate.leave('mdt_1');
  });

  it('a revocation waits for the calls admitted before it, and a call arriving meanwhile waits for the revocation', async () => {
    const gate = new MandateGate();
    assert.equal(await gate.enter('mdt_1', gate.changesSeen), true);
    const order: string[] = [];
    const revocation = gate.exclusive('mdt_1', async () => { order.push('revoked'); });
    const seen = gate.changesSeen;
    const late = gate.enter('mdt_1', seen).then((admitted) => { order.push(`late call admitted: ${admitted}`); });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(order.length, 0, 'the revocation waits for the call in flight');
    order.push('first call done');
    gate.leave('mdt_1');
    await revocation;
    await late;
    assert.deepEqual(order, ['first call done', 'revoked', 'late call admitted: false']);
  });

  it("another mandate's change ended meanwhile costs a call one more read, never an admission under a stale mandate", async () => {
    const gate = new MandateGate();
    const seen = gate.changesSeen;
    await gate.exclusive('mdt_2', async () => {});
    assert.equal(await gate.enter('mdt_1', seen), false);
  });
});
