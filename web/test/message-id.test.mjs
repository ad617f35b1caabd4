import { test } from 'node:test';
import assert from 'node:assert/strict';
import { messageIDBytes, newMessageID } from '../js/crypto/message-id.js';

test('a message id is a version 7 UUID that starts with its millisecond', () => {
    // 1,796,000,000,123 ms is 0x1A2_29F1_287B, as in the Swift client's test.
    const ids = Array.from({ length: 200 }, () => newMessageID(1_796_000_000_123));
    assert.equal(new Set(ids).size, 200);
    for (const id of ids) {
        assert.match(id, /^01A229F1-287B-7[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
        assert.equal(messageIDBytes(id).length, 16);
    }
});

test('an id made later sorts after an earlier one', () => {
    const earlier = newMessageID(1_796_000_000_000);
    const later = newMessageID(1_796_000_000_002);
    assert.ok(earlier < later);
});

test('an id made now carries the current millisecond', () => {
    const before = Date.now();
    const id = newMessageID();
    const after = Date.now();
    const milliseconds = parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    assert.ok(milliseconds >= before && milliseconds <= after);
});

test('a time beyond 48 bits of milliseconds is clamped, as the Swift client clamps it', () => {
    assert.match(newMessageID(1e18), /^FFFFFFFF-FFFF-7/);
    assert.match(newMessageID(-5), /^00000000-0000-7/);
});
