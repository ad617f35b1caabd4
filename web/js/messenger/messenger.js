/**
 * The browser's Wots account, as WotsClient's `Messenger` (account.js makes one: load, register, restore):
 * conversations over the stream. Events (an `EventTarget`): `conversation` (detail: the peer's
 * token, or a group's id) when a conversation's messages changed, `typing` ({peer, state}), `contacts` when a contact
 * changed (a key change waiting), `stream` ({state}), `group` (detail: the group's id) when a group changed,
 * `group-typing` ({group, member, state}) when a group member types.
 * Groups are in groups.js (`messenger.groups`).
 */

import { fromBase64, utf8 } from '../crypto/bytes.js';
import { EnvelopeHeader } from '../crypto/envelope-header.js';
import { sealEnvelope } from '../crypto/envelope-sealing.js';
import { Fingerprint, SafetyNumber } from '../crypto/fingerprint.js';
import { PublicKeys } from '../crypto/keys.js';
import { Token } from '../crypto/token.js';
import { AvatarImage } from '../content/avatar-image.js';
import { MessageContent } from '../content/message-content.js';
import { RelayError } from '../protocol/relay-error.js';
import { StreamClient } from '../protocol/stream-client.js';
import { LocalStore } from '../storage/local-store.js';
import { Attachments } from './attachments.js';
import { ContactBook } from './contact-book.js';
import { Groups } from './groups.js';
import { Receiving } from './receiving.js';
import { isLaterTimerChange } from './timer-order.js';

export class Messenger extends EventTarget {
    constructor({ store, relay, account, identity }) {
        super();
        this.store = store;
        this.relay = relay;
        this.account = account;
        this.identity = identity;
        this.token = Token.parse(account.token);
        // No trust on first use inside a group: a member is pinned only with the key its group recorded.
        this.contacts = new ContactBook(store, relay, {
            recordedKeys: (token) => this.groups.keys.recordedFingerprints(token),
        });
        this.receiving = new Receiving(this);
        this.attachments = new Attachments(this);
        this.groups = new Groups(this);
        /** The envelope version the relay takes: 2 until it answers `unsupported_version`, then 1 (text only). */
        this.sendVersion = account.sendVersion ?? EnvelopeHeader.currentVersion;
        this.readReceipts = account.readReceipts ?? true;
        relay.authenticate({ token: this.token, identity });
        this.stream = new StreamClient({
            relay,
            onMessage: (frame) => this.receiving.receive(frame),
            onState: (state) => this.emit('stream', { state }),
        });
    }

    /** Logout: closes the stream and deletes every key, contact and message this browser kept. */
    async logout() {
        this.stream.stop();
        clearInterval(this.sweeper);
        this.attachments.revokeAll();
        await LocalStore.forget(this.store);
    }

    start() {
        this.stream.start();
        this.sweeper = setInterval(() => this.receiving.sweepExpired(), 1000);
    }

    // Conversations

    async conversations() {
        const contacts = await this.store.contacts();
        return contacts.filter((contact) => contact.token !== this.account.token);
    }

    async messages(peer) {
        return this.store.messages(peer);
    }

    /** The safety number of the user and `contact` (pinned keys, or `changedKeys` when asked). */
    async safetyNumber(contact, { changed = false } = {}) {
        const theirs = changed ? contact.changedKeys.fingerprint : contact.fingerprint;
        return SafetyNumber.of(this.identity.fingerprint, Fingerprint.fromHex(theirs));
    }

    /** Whether `read` receipts go out (an account setting kept in this browser; `delivered` ones always go). */
    async setReadReceipts(on) {
        this.readReceipts = on;
        await this.store.updateAccount({ readReceipts: on });
    }

    async acceptChangedKeys(token) {
        const { contact, held } = await this.contacts.acceptChangedKeys(await this.store.contact(token));
        for (const frame of held) await this.receiving.receive(frame);
        this.emit('contacts');
        this.emit('conversation', contact.token);
        return contact;
    }

    /**
     * Sends a text (or another content) to `peer`. Refused with `key_changed` while a changed key waits for the
     * user; a relay answer `recipient_key_changed` records the new key and refuses the same way.
     */
    async sendText(peer, text) {
        let contact = await this.contacts.contact(peer);
        contact = await this.introduce(contact);
        const disappearAfter = this.sendVersion >= 2 ? contact.disappearAfter : 0;
        const content = MessageContent.text(text, { disappearAfter });
        return this.sendContent(contact, content, { keep: true });
    }

    /**
     * Sends a file (`{name, mediaType, bytes}`) to `peer`: encrypted, uploaded as a blob, then announced.
     * @param {(done: number, total: number) => void} [onProgress] upload progress
     */
    async sendAttachment(peer, file, onProgress) {
        return this.attachments.send(peer, file, onProgress);
    }

    /**
     * The first time the user writes to a contact, a `profile` message tells them the user's avatar: a preset's
     * name, or the picture as an encrypted blob only they may fetch.
     */
    async introduce(contact) {
        const avatar = this.account.avatar;
        if (contact.introduced || !(avatar?.preset || avatar?.image) || this.sendVersion < 2 || contact.changedKeys) {
            return contact;
        }
        try {
            let profile = { preset: avatar.preset };
            if (avatar.image) {
                const bytes = fromBase64(avatar.image);
                const image = await this.attachments.upload([contact.token], bytes,
                    { name: 'avatar', mediaType: AvatarImage.mediaType(bytes) });
                profile = { image };
            }
            await this.sendContent(contact, { type: 'profile', avatar: profile }, { keep: false });
        } catch {
            return contact;
        }
        const introduced = { ...(await this.store.contact(contact.token)), introduced: true };
        await this.store.saveContact(introduced);
        return introduced;
    }

    /** Sets the conversation's disappearing timer (seconds; 0 = off) and tells the peer. */
    async setDisappearAfter(peer, seconds) {
        const contact = await this.contacts.contact(peer);
        if (this.sendVersion >= 2) {
            await this.sendContent(contact, MessageContent.settings(seconds), { keep: false });
        } else {
            await this.applyTimer(contact.token, seconds, Date.now(), this.account.token);
        }
        await this.note(peer, seconds ? `disappearing messages: ${seconds} s` : 'disappearing messages off');
    }

    /**
     * Makes `seconds` the conversation's timer if this change is later than the one kept (timer-order.js).
     * @returns {Promise<boolean>} whether it was applied
     */
    async applyTimer(peer, seconds, setAt, setBy) {
        const contact = await this.store.contact(peer);
        if (!isLaterTimerChange(contact, setAt, setBy)) return false;
        await this.store.saveContact({ ...contact, disappearAfter: seconds, timerSetAt: setAt, timerSetBy: setBy });
        return true;
    }

    /**
     * Typing goes only as an ephemeral stream frame. A relay that answers without `"ephemeral": true` stored it as
     * mail (it predates ephemeral frames): typing is then off for this session, so no more land in mailboxes.
     */
    async sendTyping(peer, state) {
        if (this.sendVersion < 2 || !this.stream.isReady || this.typingSupported === false) return;
        const contact = await this.contacts.contact(peer);
        if (contact.changedKeys) return;
        const envelope = await this.seal(contact, MessageContent.typing(state));
        try {
            const reply = await this.stream.send(envelope.toJSON(), { ephemeral: true });
            this.typingSupported = reply.ephemeral === true;
        } catch {
            // A lost typing notice is harmless.
        }
        this.emit('typing-support', { supported: this.typingSupported });
    }

    /**
     * Receipts for `messages` (1:1 ones, or group messages of `peer`'s: never both in one call) to `peer` alone, under
     * the 1:1 conversation's timer, at most 100 per envelope.
     */
    async sendReceipt(peer, status, messages) {
        if (this.sendVersion < 2 || messages.length === 0) return;
        const contact = await this.contacts.contact(peer);
        if (contact.changedKeys) return;
        const disappearAfter = contact.disappearAfter ?? 0;
        for (let start = 0; start < messages.length; start += MessageContent.maximumReceiptMessages) {
            const batch = messages.slice(start, start + MessageContent.maximumReceiptMessages);
            const content = MessageContent.receipt(status, batch, { disappearAfter });
            await this.sendContent(contact, content, { keep: false }).catch(() => {});
        }
    }

    /** Marks the peer's messages read and sends one `read` receipt for those not yet read. */
    async markRead(peer) {
        const unread = (await this.store.messages(peer)).filter((message) => message.direction === 'in' && !message.read
            && message.content && MessageContent.wantsReceipt(message.content));
        if (unread.length === 0) return;
        for (const message of unread) await this.store.saveMessage({ ...message, read: true });
        if (this.readReceipts) {
            await this.sendReceipt(peer, 'read', unread.map((message) => ({ sender: message.sender, id: message.id })));
        }
    }

    async seal(contact, content, { sentAt = Date.now(), version = this.sendVersion, messageID } = {}) {
        const disappearAfter = MessageContent.expiresAfter(content);
        const plaintext = version >= 2 ? MessageContent.encode(content) : utf8(content.text);
        return sealEnvelope({
            plaintext,
            messageID,
            sentAt,
            expiresAt: version >= 2 && disappearAfter ? sentAt + disappearAfter * 1000 : 0,
            version,
            sender: this.token,
            identity: this.identity,
            recipient: Token.parse(contact.token),
            recipientKeys: PublicKeys.fromJSON(contact.publicKeys),
        });
    }

    async sendContent(contact, content, { keep, messageID, sentAt = Date.now() }) {
        if (contact.changedKeys) {
            throw keyChanged(contact);
        }
        let envelope = await this.seal(contact, content, { sentAt, messageID });
        if (content.type === 'settings') {
            await this.applyTimer(contact.token, content.disappearAfter, sentAt, this.account.token);
        }
        const record = {
            conversation: contact.token,
            id: envelope.header.messageID.toLowerCase(),
            sender: this.account.token,
            direction: 'out',
            sentAt,
            expiresAt: Number(envelope.header.expiresAtMilliseconds),
            content,
            status: 'sending',
        };
        if (keep) {
            await this.store.saveMessage(record);
            this.emit('conversation', contact.token);
        }
        try {
            try {
                await this.deliver(envelope);
            } catch (error) {
                const downgrade = error.code === 'unsupported_version' && envelope.header.version !== 1
                    && content.type === 'text';
                if (!downgrade) throw error;
                this.sendVersion = 1;
                await this.store.updateAccount({ sendVersion: 1 });
                // The relay stored nothing, so the same message id is free for the version 1 copy.
                const messageID = envelope.header.messageID;
                const text = { type: 'text', text: content.text };
                envelope = await this.seal(contact, text, { sentAt, version: 1, messageID });
                record.expiresAt = 0;
                await this.deliver(envelope);
            }
            record.status = 'sent';
        } catch (failure) {
            record.status = 'failed';
            if (keep) {
                await this.store.saveMessage(record);
                this.emit('conversation', contact.token);
            }
            if (failure.code !== 'recipient_key_changed') throw failure;
            await this.contacts.recheck(contact);
            this.emit('contacts');
            throw keyChanged(contact);
        }
        if (keep) {
            const stored = await this.store.message(contact.token, record.sender, record.id);
            // A receipt may have come back before the send's own answer.
            if (!stored || stored.status === 'sending') await this.store.saveMessage(record);
            this.emit('conversation', contact.token);
        }
        return record;
    }

    /** Over the stream when it is up, else `POST /v1/messages`. */
    async deliver(envelope) {
        if (this.stream.isReady) {
            try {
                return await this.stream.send(envelope.toJSON());
            } catch (error) {
                if (error.code !== 'relay_unreachable') throw error;
            }
        }
        return this.relay.send(envelope.toJSON());
    }

    /** A line in the conversation from the client itself ("a disappearing message expired"). */
    async note(peer, text) {
        const id = crypto.randomUUID();
        await this.store.saveMessage({
            conversation: peer, id, sender: 'note', direction: 'note', sentAt: Date.now(), expiresAt: 0,
            content: { type: 'note', text },
        });
        this.emit('conversation', peer);
    }

    emit(type, detail) {
        this.dispatchEvent(new CustomEvent(type, { detail }));
    }
}

function keyChanged(contact) {
    const reason = `${contact.nickname}'s key changed: compare the new safety number and accept it first`;
    return new RelayError('key_changed', reason);
}
