import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TypingThrottle } from '../js/messenger/typing-throttle.js';

// As WotsClient's TypingThrottle: one `started` per 3 s while keys come, `stopped` after 5 s without one or on send.

test('a burst of keys sends one started, then another after 3 s of typing', () => {
    const throttle = new TypingThrottle();
    const sent = [0, 500, 1000, 2999, 3000, 4000, 6000].map((at) => throttle.keystroke(at));
    assert.deepEqual(sent, [true, false, false, false, true, false, true]);
});

test('stopped goes after 5 s without a key, once, and only after a started', () => {
    const throttle = new TypingThrottle();
    assert.equal(throttle.tick(10_000), false, 'nothing was started');
    throttle.keystroke(0);
    throttle.keystroke(2000);
    assert.equal(throttle.tick(6999), false, '4.999 s since the last key');
    assert.equal(throttle.tick(7000), true);
    assert.equal(throttle.tick(20_000), false, 'said once');
    assert.equal(throttle.keystroke(20_001), true, 'a new burst starts again at once');
});

test('sending the message stops typing (when it had started), and the next key starts again', () => {
    const throttle = new TypingThrottle();
    assert.equal(throttle.sent(), false);
    throttle.keystroke(0);
    assert.equal(throttle.sent(), true);
    assert.equal(throttle.keystroke(100), true);
});
