/**
 * One conversation: messages with sent/delivered/read marks, attachments (sent with a file input and a progress
 * bar), live delivery, typing, the disappearing timer, the safety number as digits (and a QR code of them), and the
 * key-change warning that blocks sending until the user accepts the new key.
 */

import { MessageContent } from '../content/message-content.js';
import { TypingThrottle } from '../messenger/typing-throttle.js';
import { describe } from './account-views.js';
import { attachmentBody, contactAvatar, whenFilePicked } from './attachment-views.js';
import { field, formatTime, h, replace } from './dom.js';
import { safetyNumberQR } from './qr-code.js';

const marks = { sending: '…', sent: '✓', delivered: '✓✓', read: '✓✓ read', failed: 'not sent' };
const markNames = { sending: 'sending', sent: 'sent', delivered: 'delivered', read: 'read', failed: 'not sent' };
/** The disappearing timers a chat offers, in seconds (the group chat offers the same). */
export const timerChoices = [
    [0, 'Off'], [5, '5 seconds'], [30, '30 seconds'], [300, '5 minutes'], [3600, '1 hour'], [86400, '1 day'],
    [604800, '1 week'],
];

/** @param {{root: HTMLElement, messenger: import('../messenger/messenger.js').Messenger}} app */
export async function chatView(app, peer) {
    const { messenger } = app;
    const error = h('p', { class: 'error', role: 'alert' });
    let contact;
    try {
        contact = await messenger.contacts.contact(peer);
    } catch (failure) {
        const message = h('p', { class: 'error', role: 'alert' }, describe(failure));
        replace(app.root, h('section', { class: 'card' }, message));
        return () => {};
    }
    const list = h('ol', {
        class: 'messages', 'aria-label': `Messages with ${contact.nickname}`, 'aria-live': 'polite',
    });
    const typing = h('p', { class: 'typing', 'aria-live': 'polite' });
    const banner = h('div', { class: 'key-change', role: 'alert', hidden: true });
    const safety = h('p', { class: 'safety-number', dataset: { testid: 'safety-number' } });
    const qrSlot = h('div', { class: 'qr-slot', dataset: { testid: 'safety-qr' } });
    const text = h('textarea', { name: 'message', rows: '2', required: true });
    const send = h('button', { type: 'submit' }, 'Send');
    const attach = h('input', { type: 'file', name: 'attachment', class: 'attach' });
    const upload = h('progress', { max: '1', value: '0', id: `upload-${peer}` });
    const uploadLabel = h('label', { for: upload.id }, '');
    const uploading = h('div', { class: 'field uploading', hidden: true }, uploadLabel, upload);
    const avatarSlot = h('span', { class: 'avatar-slot' });
    const timer = h('select', { name: 'timer' },
        timerChoices.map(([seconds, name]) => h('option', { value: String(seconds) }, name)));
    timer.value = String(contact.disappearAfter ?? 0);
    timer.disabled = messenger.sendVersion < 2;

    const refresh = async () => {
        contact = await messenger.store.contact(peer);
        const messages = await messenger.messages(peer);
        const items = await Promise.all(messages.map((message) => messageItem(messenger, message)));
        const avatar = await contactAvatar(messenger, contact);
        const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
        replace(list, items);
        replace(avatarSlot, avatar);
        if (atBottom) list.scrollTop = list.scrollHeight;
        const digits = (await messenger.safetyNumber(contact)).toString();
        if (digits !== safety.textContent) {
            safety.textContent = digits;
            replace(qrSlot, await safetyNumberQR(digits));
        }
        if (contact.changedKeys) {
            const changed = (await messenger.safetyNumber(contact, { changed: true })).toString();
            // A member first met in a group whose published key is not the one the group recorded is not trusted on
            // first use: the same check as a changed key.
            const [heading, why] = contact.recordedOnly
                ? [`${contact.nickname}'s key is not the one your group recorded`,
                    'The group\'s admin saw another key for them. Messages cannot be sent or opened until you accept '
                    + 'this one. It may be a new device or a restored account — or someone in between.']
                : [`${contact.nickname}'s key changed`, 'Messages cannot be sent or opened until you accept the new '
                    + 'key. It may be a new device or a restored account — or someone in between.'];
            replace(banner,
                h('h3', {}, heading),
                h('p', {}, `${why} Compare the new safety number with them (in person or on a call) first.`),
                h('p', { class: 'safety-number', dataset: { testid: 'new-safety-number' } }, changed),
                h('button', { type: 'button', class: 'danger', onclick: accept }, 'I compared it: accept the new key'));
            banner.hidden = false;
        } else {
            banner.hidden = true;
        }
        document.body.dataset.sendVersion = String(messenger.sendVersion);
        if (document.activeElement !== timer) timer.value = String(contact.disappearAfter ?? 0);
        send.disabled = Boolean(contact.changedKeys);
        text.disabled = Boolean(contact.changedKeys);
        attach.disabled = Boolean(contact.changedKeys) || messenger.sendVersion < 2 || !uploading.hidden;
        if (document.visibilityState === 'visible') await messenger.markRead(peer);
    };
    const accept = async () => {
        await messenger.acceptChangedKeys(peer);
        await refresh();
        text.focus();
    };
    // One `started` per 3 s while keys come, `stopped` after 5 s without one or on send (as the CLI).
    const throttle = new TypingThrottle();
    const stopTyping = () => {
        if (throttle.sent()) messenger.sendTyping(peer, 'stopped');
    };
    const typingTick = setInterval(() => {
        if (throttle.tick(Date.now())) messenger.sendTyping(peer, 'stopped');
    }, 1000);
    text.addEventListener('input', () => {
        if (text.value && throttle.keystroke(Date.now())) messenger.sendTyping(peer, 'started');
    });
    text.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            form.requestSubmit();
        }
    });
    whenFilePicked(attach, { error, uploadLabel, upload, uploading },
        (file, progress) => messenger.sendAttachment(peer, file, progress), refresh);
    timer.addEventListener('change', async () => {
        try {
            await messenger.setDisappearAfter(peer, Number(timer.value));
        } catch (failure) {
            error.textContent = describe(failure);
        }
    });
    const form = h('form', {
        class: 'composer',
        onsubmit: async (event) => {
            event.preventDefault();
            const body = text.value.trim();
            if (!body) return;
            error.textContent = '';
            stopTyping();
            text.value = '';
            try {
                await messenger.sendText(peer, body);
            } catch (failure) {
                error.textContent = describe(failure);
                await refresh();
            }
            text.focus();
        },
    }, field('Message', text), send);
    const attachField = field('Attach a file', attach, 'Encrypted here, then uploaded; pictures show inline.');

    const onConversation = (event) => {
        if (event.detail === peer) refresh();
    };
    const onContacts = () => refresh();
    let typingClear = null;
    const onTyping = ({ detail }) => {
        if (detail.peer !== peer) return;
        clearTimeout(typingClear);
        typing.textContent = detail.state === 'started' ? `${contact.nickname} is typing…` : '';
        if (detail.state === 'started') typingClear = setTimeout(() => { typing.textContent = ''; }, 8000);
    };
    const onVisible = () => {
        if (document.visibilityState === 'visible') messenger.markRead(peer);
    };
    messenger.addEventListener('conversation', onConversation);
    messenger.addEventListener('contacts', onContacts);
    messenger.addEventListener('typing', onTyping);
    document.addEventListener('visibilitychange', onVisible);

    replace(app.root, h('section', { class: 'chat', 'aria-labelledby': 'chat-title' },
        h('header', { class: 'chat-head' },
            h('a', { href: '#home', class: 'back', 'aria-label': 'Back to conversations' }, '←'),
            avatarSlot,
            h('h2', { id: 'chat-title' }, contact.nickname),
            h('details', { class: 'verify' }, h('summary', {}, 'Safety number'),
                h('p', {}, 'Compare these digits with what they see for you. '
                    + 'The same on both sides: nobody is in between.'),
                safety, qrSlot),
            h('div', { class: 'timer' }, field('Disappearing messages', timer))),
        banner, list, typing, error, form, h('div', { class: 'attachments' }, attachField, uploading)));
    await refresh();
    text.focus();
    return () => {
        stopTyping();
        clearInterval(typingTick);
        messenger.removeEventListener('conversation', onConversation);
        messenger.removeEventListener('contacts', onContacts);
        messenger.removeEventListener('typing', onTyping);
        document.removeEventListener('visibilitychange', onVisible);
    };
}

async function messageItem(messenger, message) {
    if (message.direction === 'note') {
        return h('li', { class: 'note' }, message.content.text);
    }
    const { content } = message;
    const text = content.type === 'text' ? content.text
        : MessageContent.isKnown(content) ? `(${content.type})` : `unsupported message (${content.type})`;
    const body = content.type === 'attachment' ? await attachmentBody(messenger, message)
        : h('p', { class: 'body' }, text);
    const outgoing = message.direction === 'out';
    return h('li', { class: outgoing ? 'out' : 'in', dataset: { id: message.id, status: message.status ?? '' } },
        body,
        h('small', { class: 'meta' },
            h('time', { datetime: new Date(message.sentAt).toISOString() }, formatTime(message.sentAt)),
            message.expiresAt ? h('span', { title: 'disappears', 'aria-label': 'disappearing' }, ' ⏱') : null,
            outgoing ? markOf(message.status) : null));
}

function markOf(status) {
    return h('span', { class: `mark ${status}`, 'aria-label': markNames[status] }, ` ${marks[status] ?? ''}`);
}
