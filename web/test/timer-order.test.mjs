import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Token } from '../js/crypto/token.js';
import { isLaterTimerChange } from '../js/messenger/timer-order.js';

const alice = 'aaaaaaaaaaaaaaaaaaaaaaaaaa'; // 16 zero bytes
const bob = '7777777777777777777777777q'; // high bytes: '7' is 31, the largest base32 digit

describe('the order of disappearing-timer changes (SECURITY.md, "Typed content")', () => {
    test('a contact with no change kept takes any change', () => {
        assert.equal(isLaterTimerChange({}, 0, alice), true);
    });

    test('a later sentAt wins, an earlier one that arrives late is ignored', () => {
        const kept = { timerSetAt: 2000, timerSetBy: alice };
        assert.equal(isLaterTimerChange(kept, 2001, alice), true);
        assert.equal(isLaterTimerChange(kept, 1999, bob), false);
    });

    test('at the same millisecond the greater token bytes win, so both sides pick the same change', () => {
        assert.ok(Token.parse(bob).bytes[0] > Token.parse(alice).bytes[0]);
        assert.equal(isLaterTimerChange({ timerSetAt: 5000, timerSetBy: alice }, 5000, bob), true);
        assert.equal(isLaterTimerChange({ timerSetAt: 5000, timerSetBy: bob }, 5000, alice), false);
        assert.equal(isLaterTimerChange({ timerSetAt: 5000, timerSetBy: bob }, 5000, bob), false);
    });

    test('token bytes are compared as bytes, not as base32 text ("2" sorts before "a" as text, after it as a value)',
        () => {
            const digits = '22222222222222222222222224'; // value 26 in every 5-bit group
            const letters = 'bbbbbbbbbbbbbbbbbbbbbbbbba'; // value 1
            assert.ok(digits < letters);
            assert.equal(isLaterTimerChange({ timerSetAt: 1, timerSetBy: letters }, 1, digits), true);
        });
});
