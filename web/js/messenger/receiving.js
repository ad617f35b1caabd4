/**
 * What the messenger does with each `message` frame: check the sender's key against the pinned one, open,
 * read the typed content, keep it, acknowledge it, answer with a `delivered` receipt; receipts update the marks of
 * sent messages, settings change the conversation's timer, typing only comes ephemerally (v2-spec §2–3). Mail
 * signed by a changed key is held, unacknowledged, until the user accepts the key. `group_message` frames (group
 * slots) go to groups.js, in the same one-at-a-time order; an ephemeral one (group typing, no `seq`) is never
 * acknowledged.
 */

import { Envelope } from '../crypto/envelope.js';
import { openEnvelope } from '../crypto/envelope-sealing.js';
import { PublicKeys } from '../crypto/keys.js';
import { AvatarImage } from '../content/avatar-image.js';
import { MessageContent } from '../content/message-content.js';

const statusRank = { sending: 0, failed: 0, sent: 1, delivered: 2, read: 3 };

export class Receiving {
    /** @param {import('./messenger.js').Messenger} messenger */
    constructor(messenger) {
        this.messenger = messenger;
        this.queue = Promise.resolve();
    }

    /** Frames are handled one after the other, in the order they came. */
    receive(frame) {
        const next = this.queue.then(() => this.handle(frame)).catch((error) => {
            console.warn('a message could not be handled', error.code ?? error.name, error.message);
        });
        this.queue = next;
        return next;
    }

    async handle(frame) {
        const { messenger } = this;
        if (frame.type === 'group_message') {
            // An ephemeral slot (group typing) has no `seq`: it is never stored, so never acknowledged or applied.
            if (frame.ephemeral === true) await messenger.groups.receiveEphemeral(frame);
            else await messenger.groups.receive(frame);
            return;
        }
        const ephemeral = frame.ephemeral === true;
        const key = { sender: frame.envelope?.sender, id: frame.envelope?.id };
        let envelope;
        try {
            envelope = Envelope.fromJSON(frame.envelope);
        } catch {
            if (!ephemeral) await this.acknowledge(key);
            return;
        }
        const sender = String(envelope.header.sender);
        let contact = await messenger.contacts.contact(sender);
        const signedBy = envelope.header.senderFingerprint.hex;
        if (contact.changedKeys || signedBy !== contact.fingerprint) {
            if (ephemeral) return;
            if (!contact.changedKeys) contact = await messenger.contacts.recheck(contact);
            if (contact.changedKeys?.fingerprint === signedBy) {
                await messenger.contacts.hold(contact, frame);
                messenger.emit('contacts');
                messenger.emit('conversation', sender);
                return;
            }
            await this.acknowledge(key);
            await messenger.note(sender, 'a message signed by a key the directory does not publish was dropped');
            return;
        }
        const opened = await openEnvelope(envelope, {
            recipient: messenger.token,
            identity: messenger.identity,
            senderKeys: PublicKeys.fromJSON(contact.publicKeys),
        });
        let content;
        try {
            content = envelope.header.version === 1
                ? { type: 'text', text: opened.text ?? '(a message that is not text)' }
                : MessageContent.decode(opened.plaintext);
            MessageContent.checkTimer(content, envelope.header);
        } catch {
            if (!ephemeral) await this.acknowledge(key);
            return;
        }
        if (ephemeral || content.type === 'typing') {
            // Typing counts only when it came ephemerally; anything else that came ephemerally is dropped.
            if (ephemeral && content.type === 'typing') {
                messenger.emit('typing', { peer: sender, state: content.state });
            }
            if (!ephemeral) await this.acknowledge(key);
            return;
        }
        const expiresAt = Number(envelope.header.expiresAtMilliseconds);
        if (expiresAt !== 0 && expiresAt <= Date.now()) {
            await this.acknowledge(key);
            return;
        }
        await this.keep(contact, envelope, content, expiresAt);
        await this.acknowledge(key);
    }

    async keep(contact, envelope, content, expiresAt) {
        const { messenger } = this;
        const sender = contact.token;
        const id = envelope.header.messageID.toLowerCase();
        if (content.type === 'receipt') {
            await this.applyReceipt(sender, content);
            return;
        }
        if (content.type === 'settings') {
            const setAt = Number(envelope.header.sentAtMilliseconds);
            // A change that crossed a later one on the way is not applied, so both sides keep the same timer.
            if (!await messenger.applyTimer(sender, content.disappearAfter, setAt, sender)) return;
            const after = content.disappearAfter;
            await messenger.note(sender, after ? `${contact.nickname} set disappearing messages to ${after} s`
                : `${contact.nickname} turned disappearing messages off`);
            return;
        }
        if (content.type === 'profile') {
            await this.applyProfile(contact, content.avatar);
            return;
        }
        // A membership change counts only inside a group envelope (SECURITY.md, "Membership chain").
        if (content.type === 'checkpoint' || content.type === 'group_update') return;
        if (await messenger.store.message(sender, sender, id)) return;
        const message = {
            conversation: sender,
            id,
            sender,
            direction: 'in',
            sentAt: Number(envelope.header.sentAtMilliseconds),
            expiresAt,
            content,
            read: false,
        };
        const fetched = content.type === 'attachment' ? await this.fetchAttachment(message) : {};
        await messenger.store.saveMessage({ ...message, ...fetched });
        messenger.emit('conversation', sender);
        if (MessageContent.wantsReceipt(content)) await messenger.sendReceipt(sender, 'delivered', [{ sender, id }]);
    }

    /**
     * Downloads, checks and keeps a message's file. A failed check marks the message `corrupt` (the chat says so
     * and shows nothing of it); a relay that cannot hand the blob over marks it `unavailable`.
     * @returns {Promise<{corrupt?: true, unavailable?: string}>} what to record on the message
     */
    async fetchAttachment(message) {
        try {
            const bytes = await this.messenger.attachments.receive(message.content);
            await this.messenger.store.saveAttachment(message, bytes);
            return {};
        } catch (error) {
            return error.code === 'attachment_corrupt' ? { corrupt: true } : { unavailable: error.message };
        }
    }

    /**
     * A preset is kept as it is; a picture is downloaded and kept only if it is a PNG or JPEG of at most 64 KiB
     * (the avatar rule), under `avatar/TOKEN`. The contact record (kept in clear) names only the picture's type.
     */
    async applyProfile(contact, avatar) {
        const { messenger } = this;
        let kept = { preset: avatar.preset };
        if (avatar.preset === undefined) {
            try {
                const bytes = await messenger.attachments.receive(avatar.image);
                if (AvatarImage.problem(bytes) !== null) return;
                const mediaType = AvatarImage.mediaType(bytes);
                await messenger.store.saveAttachment(`avatar/${contact.token}`, bytes);
                messenger.attachments.revoke(`avatar/${contact.token}`);
                kept = { image: { mediaType } };
            } catch {
                return;
            }
        }
        await messenger.store.saveContact({ ...(await messenger.store.contact(contact.token)), avatar: kept });
        messenger.emit('contacts');
        messenger.emit('conversation', contact.token);
    }

    /**
     * A receipt moves only messages this account sent to `peer` (its verified sender): a group message that went to
     * that member (group-receipts.js), else one of the 1:1 conversation with it.
     */
    async applyReceipt(peer, receipt) {
        const { messenger } = this;
        const mine = receipt.messages.filter(({ sender }) => sender === messenger.account.token);
        const group = await messenger.groups.receipts.apply(peer, receipt.status, mine);
        for (const { sender, id } of mine) {
            if (group.has(`${sender}/${id}`.toLowerCase())) continue;
            const message = await messenger.store.message(peer, sender, id);
            if (!message || statusRank[message.status] >= statusRank[receipt.status]) continue;
            await messenger.store.saveMessage({ ...message, status: receipt.status });
        }
        messenger.emit('conversation', peer);
    }

    async acknowledge(key) {
        if (!key.sender || !key.id) return;
        const { messenger } = this;
        // Not acknowledged (refused, or the stream closed first): the relay sends it again on the next connection,
        // and it is kept only once.
        const notAcknowledged = () => {};
        if (messenger.stream.isReady) {
            // Not awaited: the next frame is handled meanwhile, and what is handled while this key's frame is
            // unanswered is acknowledged together with it in the next one.
            messenger.stream.acknowledgeSoon(key).catch(notAcknowledged);
            return;
        }
        await messenger.relay.acknowledge([key]).catch(notAcknowledged);
    }

    async sweepExpired() {
        const expired = await this.messenger.store.deleteExpired();
        for (const message of expired) {
            this.messenger.attachments.revoke(`${message.conversation}/${message.sender}/${message.id}`.toLowerCase());
        }
        for (const peer of new Set(expired.map((message) => message.conversation))) {
            await this.messenger.note(peer, 'a disappearing message expired');
        }
    }
}
