/**
 * Files and pictures through the relay's blob API, as WotsClient's `Messenger+Attachments`: a file is encrypted in
 * chunks under a fresh key (`AttachmentCipher`), uploaded as a blob only the peer (or, for a group, every other
 * member) may fetch, and announced in an `attachment` message under the conversation's timer; a received one is
 * downloaded, checked (size, digest, every chunk's tag) and decrypted, then the blob is acknowledged. The decrypted
 * bytes are kept in IndexedDB beside the message (sealed by the `StorageKey`) and shown through object URLs this
 * class hands out and revokes.
 */

import { AttachmentCipher } from '../content/attachment-cipher.js';
import { AvatarImage } from '../content/avatar-image.js';
import { fromBase64, utf8 } from '../crypto/bytes.js';
import { newMessageID } from '../crypto/message-id.js';
import { BlobTransfer } from '../protocol/blob-transfer.js';
import { RelayError } from '../protocol/relay-error.js';

/** Media types shown inline as pictures; anything else is offered as a download. */
export const inlineImageTypes = Object.freeze(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export class Attachments {
    /** @param {import('./messenger.js').Messenger} messenger */
    constructor(messenger) {
        this.messenger = messenger;
        /** Object URLs by owner key, so a redraw reuses them. */
        this.urls = new Map();
    }

    /**
     * Encrypts, uploads and announces a file to `peer`.
     * @param {{name: string, mediaType: string, bytes: Uint8Array}} file
     * @param {(done: number, total: number) => void} [onProgress] upload progress, in encrypted bytes
     */
    async send(peer, { name, mediaType, bytes }, onProgress) {
        const { messenger } = this;
        if (messenger.sendVersion < 2) {
            throw new RelayError('unsupported_version', 'this relay takes only text (envelope version 1): no files');
        }
        let contact = await messenger.contacts.contact(peer);
        if (contact.changedKeys) {
            throw new RelayError('key_changed',
                `${contact.nickname}'s key changed: compare the new safety number and accept it first`);
        }
        contact = await messenger.introduce(contact);
        // The message is dated before the upload, so a disappearing file's blob goes exactly when its message does.
        const sentAt = Date.now();
        const expiresAt = contact.disappearAfter ? sentAt + contact.disappearAfter * 1000 : undefined;
        const fields = await this.upload([contact.token], bytes, { name, mediaType }, onProgress, expiresAt);
        const content = { type: 'attachment', ...fields };
        if (contact.disappearAfter) content.disappearAfter = contact.disappearAfter;
        const messageID = newMessageID();
        const owner = { conversation: contact.token, sender: messenger.account.token, id: messageID };
        await messenger.store.saveAttachment(owner, bytes);
        return messenger.sendContent(contact, content, { keep: true, messageID, sentAt });
    }

    /**
     * Encrypts `bytes` and uploads them once for `recipients` (tokens: a peer, or every other member of a group), the
     * only accounts the relay lets fetch the blob: the attachment fields a message carries.
     */
    async upload(recipients, bytes, { name, mediaType }, onProgress, expiresAt) {
        const sealed = await AttachmentCipher.seal(bytes);
        const blob = await BlobTransfer.send(this.messenger.relay, sealed.blob, recipients.map(String), onProgress,
            expiresAt);
        return {
            blob, key: sealed.key, digest: sealed.digest, size: sealed.size, chunkSize: sealed.chunkSize,
            name: shortened(String(name)) || 'file', mediaType: shortened(mediaType || 'application/octet-stream'),
        };
    }

    /**
     * Downloads, checks and decrypts the blob an `attachment` (or profile image) names, then acknowledges it.
     * @returns {Promise<Uint8Array>} the file
     * @throws {import('../content/attachment-cipher.js').AttachmentCorrupt} when any check fails
     */
    async receive(fields) {
        const { relay } = this.messenger;
        const encryptedSize = fields.size + AttachmentCipher.tagSize
            * AttachmentCipher.chunkCount(fields.size, fields.chunkSize);
        const blob = await BlobTransfer.download(relay, fields.blob, encryptedSize);
        const bytes = await AttachmentCipher.open(blob, fields);
        await relay.acknowledgeBlob(fields.blob).catch(() => {});
        return bytes;
    }

    /** An object URL for the bytes kept for `owner` (a message key or `avatar/TOKEN`), or null when none are. */
    async url(owner, mediaType) {
        const key = typeof owner === 'string' ? owner
            : `${owner.conversation}/${owner.sender}/${owner.id}`.toLowerCase();
        if (this.urls.has(key)) return this.urls.get(key);
        const bytes = await this.messenger.store.attachment(owner);
        if (bytes === null) return null;
        const url = URL.createObjectURL(new Blob([bytes], { type: mediaType }));
        this.urls.set(key, url);
        return url;
    }

    /** An object URL for the user's own avatar picture (kept with the account), or null when it is a preset. */
    ownAvatarURL() {
        const image = this.messenger.account.avatar?.image;
        if (!image) return null;
        if (!this.urls.has('self')) {
            const bytes = fromBase64(image);
            this.urls.set('self', URL.createObjectURL(new Blob([bytes], { type: AvatarImage.mediaType(bytes) })));
        }
        return this.urls.get('self');
    }

    /** Forgets the object URL of `key` (the picture changed, or its message is gone). */
    revoke(key) {
        const url = this.urls.get(key);
        if (url) URL.revokeObjectURL(url);
        this.urls.delete(key);
    }

    revokeAll() {
        for (const key of [...this.urls.keys()]) this.revoke(key);
    }
}

/** `text` cut to at most 255 UTF-8 bytes (the longest name or media type a reader takes), whole characters only. */
export function shortened(text) {
    let cut = text;
    while (utf8(cut).length > 255) cut = [...cut].slice(0, -1).join('');
    return cut;
}

/** Whether a kept attachment is shown inline as a picture. */
export function isInlineImage(content) {
    return content.type === 'attachment' && inlineImageTypes.includes(String(content.mediaType).toLowerCase());
}
