/**
 * The plaintext of a version 2 envelope (v2-spec §2): one UTF-8 JSON object of at most 60 KiB with a string
 * `type`. Readers ignore unknown keys; an unknown type is kept (`MessageContent.isKnown` says no) and shown as
 * "unsupported message (TYPE)", never an error. Names follow WotsCore's `MessageContent`.
 */

import { fromUTF8, utf8 } from '../crypto/bytes.js';
import { DomainError, DomainErrorCode } from '../crypto/errors.js';
import { Token } from '../crypto/token.js';
import { messageIDBytes, messageIDFromBytes } from '../crypto/message-id.js';

export const MessageContentType = Object.freeze({
    text: 'text',
    receipt: 'receipt',
    typing: 'typing',
    attachment: 'attachment',
    settings: 'settings',
    profile: 'profile',
    checkpoint: 'checkpoint',
    groupUpdate: 'group_update',
});

/** The actions of a `group_update` (SECURITY.md, "Membership chain"). */
export const GroupUpdateAction = Object.freeze(['create', 'add', 'remove', 'leave', 'promote', 'rename', 'rekey']);

export const ReceiptStatus = Object.freeze({ delivered: 'delivered', read: 'read' });
export const TypingState = Object.freeze({ started: 'started', stopped: 'stopped' });

const known = new Set(Object.values(MessageContentType));

export const MessageContent = Object.freeze({
    /** Largest plaintext, before padding. */
    maximumSize: 60 * 1024,
    /** Pairs one receipt may name. */
    maximumReceiptMessages: 100,
    /** Attachment chunk size clients write (v2-spec §5); readers take 4,096–1,048,576. */
    chunkSize: 65536,
    /** The longest disappearing timer: 365 days, in seconds. */
    maximumDisappearAfter: 31_536_000,

    text(text, { disappearAfter = 0 } = {}) {
        return withTimer({ type: 'text', text: String(text) }, disappearAfter);
    },

    /**
     * @param {Array<{sender: string, id: string}>} messages 1–100 message keys
     * @param {{disappearAfter?: number}} [options] the conversation's timer, which the receipt carries (0: none)
     */
    receipt(status, messages, { disappearAfter = 0 } = {}) {
        const keys = messages.map(({ sender, id }) => ({ sender: String(sender), id }));
        return withTimer({ type: 'receipt', status, messages: keys }, disappearAfter);
    },

    typing(state) {
        return { type: 'typing', state };
    },

    /** A settings message carries the conversation's new timer as its `disappearAfter`; it never disappears itself. */
    settings(disappearAfter) {
        return { type: 'settings', disappearAfter };
    },

    /**
     * A membership change: `{"type":"group_update","action":A,"state":S}` with `S` the whole new state's JSON
     * (`GroupState.toJSON`). Only ever sent inside a group envelope.
     */
    groupUpdate(action, state) {
        return { type: 'group_update', action, state };
    },

    /** The UTF-8 JSON bytes of `content`, after checking it as a reader would. */
    encode(content) {
        const bytes = utf8(JSON.stringify(MessageContent.checked(content)));
        if (bytes.length > MessageContent.maximumSize) {
            throw malformed(`message content is ${bytes.length} bytes (at most ${MessageContent.maximumSize})`);
        }
        return bytes;
    },

    /**
     * Reads a plaintext. Unknown keys are dropped by nobody (the object is returned as read); an unknown type
     * passes; a known type with a bad field is refused.
     * @throws {DomainError} `malformed` naming the field and the rule
     */
    decode(bytes) {
        if (bytes.length > MessageContent.maximumSize) {
            throw malformed(`message content is ${bytes.length} bytes (at most ${MessageContent.maximumSize})`);
        }
        let value;
        try {
            value = JSON.parse(fromUTF8(bytes));
        } catch {
            throw malformed('message content is not UTF-8 JSON');
        }
        return MessageContent.checked(value);
    },

    isKnown(content) {
        return known.has(content.type);
    },

    /** Whether the recipient answers it with a `delivered` (and `read`) receipt: text and attachments only. */
    wantsReceipt(content) {
        return content.type === 'text' || content.type === 'attachment';
    },

    /** Seconds after sending when the message itself disappears: its timer, 0 for none and for `settings`. */
    expiresAfter(content) {
        return content.type === 'settings' ? 0 : content.disappearAfter ?? 0;
    },

    /**
     * The disappearing timer's rule: a non-zero `disappearAfter` needs `expiresAt = sentAt + 1000 × disappearAfter`.
     * @param {object} content a decoded content
     * @param {import('../crypto/envelope-header.js').EnvelopeHeader} header its verified header
     * @throws {DomainError} `malformed` on a mismatch (the relay cannot shorten or lengthen a timer)
     */
    checkTimer(content, header) {
        const after = MessageContent.expiresAfter(content);
        if (after === 0) {
            if (header.expiresAtMilliseconds !== 0n) {
                throw malformed(content.type === 'settings' ? 'a settings message must not expire'
                    : 'a message without disappearAfter must not expire');
            }
            return;
        }
        const expected = header.sentAtMilliseconds + BigInt(after) * 1000n;
        if (header.expiresAtMilliseconds !== expected) {
            throw malformed(`expiresAt ${header.expiresAtMilliseconds} is not sentAt + ${after} s (${expected})`);
        }
    },

    /** `content`, if every field its type defines is as v2-spec §2 says. */
    checked(content) {
        if (content === null || typeof content !== 'object' || Array.isArray(content)) {
            throw malformed('message content is not a JSON object');
        }
        if (typeof content.type !== 'string' || content.type.length === 0) {
            throw malformed('message content has no string type');
        }
        if (content.disappearAfter !== undefined) checkSeconds(content.disappearAfter, 'disappearAfter');
        if ((content.disappearAfter ?? 0) > MessageContent.maximumDisappearAfter) {
            throw malformed(`disappearAfter ${content.disappearAfter} s is beyond 365 days`);
        }
        if (utf8(content.type).length > 64) throw malformed('message content type is longer than 64 bytes');
        const check = checkers[content.type];
        if (check) check(content);
        return content;
    },
});

const checkers = {
    text(content) {
        if (typeof content.text !== 'string') throw malformed('text content needs a string text');
    },
    receipt(content) {
        if (!Object.values(ReceiptStatus).includes(content.status)) {
            throw malformed(`receipt status ${JSON.stringify(content.status)} is not delivered or read`);
        }
        const { messages } = content;
        const count = Array.isArray(messages) ? messages.length : 0;
        if (count < 1 || count > MessageContent.maximumReceiptMessages) {
            throw malformed('a receipt names 1–100 messages');
        }
        for (const key of messages) {
            Token.parse(key?.sender);
            const id = messageIDBytes(key?.id);
            if (id === null) throw malformed(`receipt message id ${JSON.stringify(key?.id)} is not a UUID`);
            key.id = messageIDFromBytes(id).toLowerCase();
        }
    },
    typing(content) {
        if (!Object.values(TypingState).includes(content.state)) {
            throw malformed(`typing state ${JSON.stringify(content.state)} is not started or stopped`);
        }
    },
    settings(content) {
        checkSeconds(content.disappearAfter, 'settings disappearAfter');
    },
    attachment(content) {
        checkAttachmentFields(content);
        if (content.caption !== undefined && typeof content.caption !== 'string') {
            throw malformed('attachment caption must be a string');
        }
    },
    profile(content) {
        const avatar = content.avatar;
        if (avatar === null || typeof avatar !== 'object') throw malformed('profile needs an avatar object');
        if (avatar.preset !== undefined) {
            if (typeof avatar.preset !== 'string') throw malformed('avatar preset must be a string');
        } else {
            checkAttachmentFields(avatar.image ?? {});
        }
    },
    checkpoint(content) {
        if (typeof content.note !== 'string') throw malformed('checkpoint needs a string note');
    },
    // The state's fields are read by GroupState.fromJSON where it is used; here only its shape.
    group_update(content) {
        if (!GroupUpdateAction.includes(content.action)) {
            throw malformed(`group_update action ${JSON.stringify(content.action)?.slice(0, 20)} is unknown`);
        }
        if (content.state === null || typeof content.state !== 'object' || Array.isArray(content.state)) {
            throw malformed('group_update needs a state object');
        }
    },
};

function checkAttachmentFields(fields) {
    if (typeof fields.blob !== 'string' || !/^[a-z2-7]{26}$/.test(fields.blob)) {
        throw malformed('attachment blob must be a 26-character base32 id');
    }
    if (typeof fields.key !== 'string' || !/^[A-Za-z0-9+/]{43}=$/.test(fields.key)) {
        throw malformed('attachment key must be 32 bytes of standard base64');
    }
    if (typeof fields.digest !== 'string' || !/^[0-9a-f]{64}$/.test(fields.digest)) {
        throw malformed('attachment digest must be 64 lowercase hex digits');
    }
    checkSeconds(fields.size, 'attachment size');
    if (!Number.isSafeInteger(fields.chunkSize) || fields.chunkSize < 4096 || fields.chunkSize > 1_048_576) {
        throw malformed('attachment chunkSize must be 4,096–1,048,576');
    }
    if (typeof fields.name !== 'string' || typeof fields.mediaType !== 'string') {
        throw malformed('attachment needs a string name and mediaType');
    }
}

function checkSeconds(value, what) {
    if (!Number.isSafeInteger(value) || value < 0) throw malformed(`${what} ${value} is not a non-negative integer`);
}

function withTimer(content, disappearAfter) {
    if (disappearAfter) content.disappearAfter = disappearAfter;
    return content;
}

function malformed(reason) {
    return new DomainError(DomainErrorCode.malformed, reason);
}
