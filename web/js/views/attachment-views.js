/**
 * What an attachment looks like in a chat: a picture inline (an <img> from an object URL, the file name as its alt
 * text), any other file as a download link, a failed check as "attachment corrupt" and nothing else. Also the
 * contact avatars that are decrypted pictures rather than preset drawings.
 */

import { isInlineImage } from '../messenger/attachments.js';
import { describe } from './account-views.js';
import { avatarPicture, h } from './dom.js';

/** The body of an `attachment` message. */
export async function attachmentBody(messenger, message) {
    const { content } = message;
    if (message.corrupt) {
        return h('p', { class: 'body attachment-corrupt', role: 'note' },
            `attachment corrupt: "${content.name}" did not match its digest or tags and was not kept`);
    }
    // Only the four picture types keep their type: any other file is an opaque download, so a sender's text/html
    // or SVG can never be opened as a page of this origin from its object URL.
    const inline = isInlineImage(content);
    const url = await messenger.attachments.url(message, inline ? content.mediaType : 'application/octet-stream');
    if (url === null) {
        const why = message.unavailable ? `could not be downloaded (${message.unavailable})` : 'is not here';
        return h('p', { class: 'body attachment-missing' }, `attachment "${content.name}" ${why}`);
    }
    const caption = content.caption ? h('p', { class: 'body caption' }, content.caption) : null;
    if (inline) {
        return h('figure', { class: 'attachment' },
            h('img', { src: url, alt: content.name, class: 'attachment-image' }),
            caption ? h('figcaption', {}, caption) : null);
    }
    return h('div', { class: 'attachment' },
        h('a', { href: url, download: content.name, class: 'attachment-file' },
            `⬇ ${content.name} (${formatSize(content.size)})`),
        caption);
}

/** A contact's avatar: their decrypted picture when they sent one, else the preset drawing (or their initial). */
export async function contactAvatar(messenger, contact, size = 40) {
    const image = contact.avatar?.image;
    if (image) {
        const url = await messenger.attachments.url(`avatar/${contact.token}`, image.mediaType);
        if (url !== null) {
            return h('img', { src: url, alt: `${contact.nickname}'s avatar`, class: 'avatar avatar-image',
                width: String(size), height: String(size) });
        }
    }
    return avatarPicture(contact.avatar?.preset, contact.nickname, size);
}

export function formatSize(bytes) {
    if (bytes < 1024) return `${bytes} bytes`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The user's own avatar: their picture, or the preset drawing. */
export function ownAvatar(messenger, size = 28) {
    const { account } = messenger;
    const url = messenger.attachments.ownAvatarURL();
    if (url === null) return avatarPicture(account.avatar?.preset, account.nickname, size);
    return h('img', { src: url, alt: 'your avatar', class: 'avatar avatar-image', width: String(size),
        height: String(size) });
}

/**
 * Sends the file just picked in `attach` with `send({ name, mediaType, bytes }, progress)`, showing its upload in
 * `upload` and a failure in `error`, then calls `refresh`.
 */
export function whenFilePicked(attach, { error, uploadLabel, upload, uploading }, send, refresh) {
    attach.addEventListener('change', async () => {
        const file = attach.files?.[0];
        if (!file) return;
        attach.value = '';
        error.textContent = '';
        uploadLabel.textContent = `Uploading ${file.name}`;
        upload.value = 0;
        uploading.hidden = false;
        attach.disabled = true;
        try {
            const bytes = new Uint8Array(await file.arrayBuffer());
            await send({ name: file.name, mediaType: file.type, bytes },
                (done, total) => { upload.value = total ? done / total : 1; });
        } catch (failure) {
            error.textContent = describe(failure);
        } finally {
            uploading.hidden = true;
            await refresh();
        }
    });
}
