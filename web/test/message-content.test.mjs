import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { utf8 } from '../js/crypto/bytes.js';
import { EnvelopeHeader } from '../js/crypto/envelope-header.js';
import { Fingerprint } from '../js/crypto/fingerprint.js';
import { MessagePadding } from '../js/crypto/message-padding.js';
import { Token } from '../js/crypto/token.js';
import { MessageContent } from '../js/content/message-content.js';

const malformed = (error) => error.code === 'malformed';
const token = 'psvnq2utkat2kvrmi2s4erjzcm';
const header = (sentAt, expiresAt) => new EnvelopeHeader({
    messageID: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', sender: Token.parse(token), recipient: Token.parse(token),
    senderFingerprint: new Fingerprint(new Uint8Array(32)), recipientFingerprint: new Fingerprint(new Uint8Array(32)),
    sentAtMilliseconds: sentAt, expiresAtMilliseconds: expiresAt,
});

describe('typed content (v2-spec §2)', () => {
    test('each type the client sends round-trips through its bytes', () => {
        for (const content of [
            MessageContent.text('hello 👋', { disappearAfter: 30 }),
            MessageContent.receipt('read', [{ sender: token, id: '3F2504E0-4F89-41D3-9A0C-0305E82C3301' }]),
            MessageContent.typing('started'),
            MessageContent.settings(3600),
        ]) {
            const back = MessageContent.decode(MessageContent.encode(content));
            assert.equal(back.type, content.type);
        }
        assert.equal(MessageContent.decode(MessageContent.encode(MessageContent.receipt('delivered', [
            { sender: token, id: '3F2504E0-4F89-41D3-9A0C-0305E82C3301' }]))).messages[0].id,
        '3f2504e0-4f89-41d3-9a0c-0305e82c3301', 'ids are written in lowercase');
    });

    test('unknown keys are ignored and an unknown type is kept, never an error', () => {
        const content = MessageContent.decode(utf8('{"type":"poll","question":"?","extra":1}'));
        assert.equal(content.type, 'poll');
        assert.equal(MessageContent.isKnown(content), false);
        assert.equal(MessageContent.decode(utf8('{"type":"text","text":"a","future":true}')).text, 'a');
    });

    test('a bad field of a known type, no type, or not JSON is malformed', () => {
        for (const text of ['not json', '[]', '{"text":"no type"}', '{"type":"text"}', '{"type":"typing","state":"maybe"}',
            '{"type":"receipt","status":"read","messages":[]}', '{"type":"settings","disappearAfter":-1}',
            '{"type":"receipt","status":"seen","messages":[{"sender":"x","id":"y"}]}',
            '{"type":"text","text":"a","disappearAfter":1.5}']) {
            assert.throws(() => MessageContent.decode(utf8(text)), (error) => malformed(error) || error.code === 'invalid_token', text);
        }
        assert.throws(() => MessageContent.decode(new Uint8Array(60 * 1024 + 1)), malformed);
    });

    test('a timer must match the header: expiresAt = sentAt + 1000 × disappearAfter', () => {
        const content = MessageContent.text('x', { disappearAfter: 60 });
        MessageContent.checkTimer(content, header(1000, 61_000));
        assert.throws(() => MessageContent.checkTimer(content, header(1000, 62_000)), malformed);
        assert.throws(() => MessageContent.checkTimer(content, header(1000, 0)), malformed);
        MessageContent.checkTimer(MessageContent.text('no timer'), header(1000, 0));
        assert.throws(() => MessageContent.checkTimer(MessageContent.text('no timer'), header(1000, 5000)), malformed,
            'without disappearAfter, expiresAt must be 0');
        assert.throws(() => MessageContent.decode(utf8('{"type":"text","text":"a","disappearAfter":31536001}')), malformed);
    });

    test('a settings message carries the new timer but never expires itself', () => {
        const settings = MessageContent.settings(3600);
        MessageContent.checkTimer(settings, header(1000, 0));
        assert.throws(() => MessageContent.checkTimer(settings, header(1000, 3_601_000)), malformed);
        assert.equal(MessageContent.expiresAfter(settings), 0);
        assert.equal(MessageContent.expiresAfter(MessageContent.text('x', { disappearAfter: 5 })), 5);
    });

    test('receipts and typing are never answered with receipts; a one-pair receipt pads like a short text', () => {
        assert.equal(MessageContent.wantsReceipt(MessageContent.text('x')), true);
        assert.equal(MessageContent.wantsReceipt(MessageContent.typing('started')), false);
        assert.equal(MessageContent.wantsReceipt(MessageContent.receipt('read', [{ sender: token, id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }])), false);
        const receipt = MessageContent.encode(MessageContent.receipt('delivered', [{ sender: token, id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' }]));
        assert.equal(MessagePadding.pad(receipt).length, 256);
        assert.equal(MessagePadding.pad(MessageContent.encode(MessageContent.text('ok'))).length, 256);
    });
});
