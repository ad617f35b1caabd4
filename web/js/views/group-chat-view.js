/**
 * A group's conversation: its avatar and name, messages with their senders' names (texts, files, pictures inline),
 * how far each message this account sent got (`✓✓ 2/3 · read 1/3`, from the members' receipts), membership and timer
 * changes, refusals and warnings as lines, who is typing, the group's disappearing timer, a file input, and the key
 * warnings (a member whose key is not the one the group recorded, or changed) when it opens. Nodes from text only.
 */

import { MessageContent } from '../content/message-content.js';
import { GroupReceipts } from '../messenger/group-receipts.js';
import { TypingThrottle } from '../messenger/typing-throttle.js';
import { describe } from './account-views.js';
import { attachmentBody, whenFilePicked } from './attachment-views.js';
import { timerChoices } from './chat-view.js';
import { field, formatTime, h, replace } from './dom.js';
import { groupAvatar } from './group-views.js';

const marks = { sending: '…', failed: 'not sent' };
/** How long "alice is typing…" stays without another `started` (they come every 3 s while a member types). */
const typingShown = 8000;

export async function groupChatView(app, id) {
    const { messenger } = app;
    const { groups } = messenger;
    if (!(await groups.entry(id))) {
        const missing = h('p', { class: 'error', role: 'alert' }, 'No such group here.');
        replace(app.root, h('section', { class: 'card' }, missing));
        return () => {};
    }
    const title = h('h2', { id: 'group-title' });
    const avatarSlot = h('span', { class: 'avatar-slot' });
    const list = h('ol', { class: 'messages', 'aria-label': 'Group messages', 'aria-live': 'polite' });
    const typing = h('p', { class: 'typing', 'aria-live': 'polite', dataset: { testid: 'group-typing' } });
    const keyNotes = h('ul', { class: 'key-notes', hidden: true, dataset: { testid: 'key-warnings' } });
    const error = h('p', { class: 'error', role: 'alert' });
    const gone = h('p', { class: 'key-change', role: 'status', hidden: true, dataset: { testid: 'not-member' } },
        'You are no longer a member of this group: nothing more reaches you, and you cannot send.');
    const text = h('textarea', { name: 'message', rows: '2', required: true });
    const send = h('button', { type: 'submit' }, 'Send');
    const attach = h('input', { type: 'file', name: 'attachment', class: 'attach' });
    const upload = h('progress', { max: '1', value: '0', id: `upload-${id}` });
    const uploadLabel = h('label', { for: upload.id }, '');
    const uploading = h('div', { class: 'field uploading', hidden: true }, uploadLabel, upload);
    const timer = h('select', { name: 'timer' },
        timerChoices.map(([seconds, name]) => h('option', { value: String(seconds) }, name)));

    const refresh = async () => {
        const entry = await groups.entry(id);
        const { chain } = entry;
        title.textContent = chain.current.name;
        replace(avatarSlot, groupAvatar(chain.current));
        const messages = await messenger.messages(id);
        const items = await Promise.all(messages.map((message) => groupItem(messenger, message)));
        const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
        replace(list, items);
        if (atBottom) list.scrollTop = list.scrollHeight;
        gone.hidden = chain.isMember;
        for (const control of [text, send, timer]) control.disabled = !chain.isMember;
        attach.disabled = !chain.isMember || messenger.sendVersion < 2 || !uploading.hidden;
        if (document.activeElement !== timer) timer.value = String(entry.timer?.disappearAfter ?? 0);
        if (document.visibilityState === 'visible') await groups.receipts.markRead(id);
    };
    const showKeyWarnings = async () => {
        const lines = await groups.keys.warnings(id).catch(() => []);
        replace(keyNotes, lines.map((line) => h('li', { class: 'warning-line' }, `⚠ ${line}`)));
        keyNotes.hidden = lines.length === 0;
    };

    const throttle = new TypingThrottle();
    const stopTyping = () => {
        if (throttle.sent()) groups.sendTyping(id, 'stopped');
    };
    const typingTick = setInterval(() => {
        if (throttle.tick(Date.now())) groups.sendTyping(id, 'stopped');
    }, 1000);
    text.addEventListener('input', () => {
        if (text.value && throttle.keystroke(Date.now())) groups.sendTyping(id, 'started');
    });
    text.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && !event.shiftKey) {
            event.preventDefault();
            form.requestSubmit();
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
                await groups.sendText(id, body);
            } catch (failure) {
                error.textContent = describe(failure);
            }
            text.focus();
        },
    }, field('Message', text), send);
    whenFilePicked(attach, { error, uploadLabel, upload, uploading },
        (file, progress) => groups.sendAttachment(id, file, progress), refresh);
    timer.addEventListener('change', async () => {
        error.textContent = '';
        try {
            await groups.setTimer(id, Number(timer.value));
        } catch (failure) {
            error.textContent = describe(failure);
            await refresh();
        }
    });

    // Who is typing: each member's line goes after `typingShown` without a new `started`, at once on `stopped`.
    const typers = new Map();
    const drawTyping = () => {
        const names = [...typers.values()].map(({ name }) => name);
        const last = names.pop();
        typing.textContent = names.length === 0 ? (last ? `${last} is typing…` : '')
            : `${names.join(', ')} and ${last} are typing…`;
    };
    const onTyping = async ({ detail }) => {
        if (detail.group !== id) return;
        clearTimeout(typers.get(detail.member)?.clear);
        typers.delete(detail.member);
        if (detail.state === 'started') {
            const name = await groups.nameOf(detail.member);
            const clear = setTimeout(() => {
                typers.delete(detail.member);
                drawTyping();
            }, typingShown);
            typers.set(detail.member, { name, clear });
        }
        drawTyping();
    };
    const onConversation = (event) => {
        if (event.detail === id) refresh();
    };
    const onVisible = () => {
        if (document.visibilityState === 'visible') groups.receipts.markRead(id);
    };
    messenger.addEventListener('conversation', onConversation);
    messenger.addEventListener('group', onConversation);
    messenger.addEventListener('group-typing', onTyping);
    document.addEventListener('visibilitychange', onVisible);
    replace(app.root, h('section', { class: 'chat', 'aria-labelledby': 'group-title' },
        h('header', { class: 'chat-head' },
            h('a', { href: '#home', class: 'back', 'aria-label': 'Back to conversations' }, '←'),
            avatarSlot, title,
            h('a', { href: `#group-info/${id}`, class: 'group-info-link' }, 'Group info'),
            h('div', { class: 'timer' }, field('Disappearing messages', timer))),
        gone, keyNotes, list, typing, error, form,
        h('div', { class: 'attachments' },
            field('Attach a file', attach, 'Encrypted here, then uploaded once for every member.'), uploading)));
    await refresh();
    showKeyWarnings();
    if (!text.disabled) text.focus();
    return () => {
        stopTyping();
        clearInterval(typingTick);
        for (const { clear } of typers.values()) clearTimeout(clear);
        messenger.removeEventListener('conversation', onConversation);
        messenger.removeEventListener('group', onConversation);
        messenger.removeEventListener('group-typing', onTyping);
        document.removeEventListener('visibilitychange', onVisible);
    };
}

async function groupItem(messenger, message) {
    if (message.direction === 'note') {
        return h('li', { class: `note ${message.kind ?? ''}`.trim(), dataset: { kind: message.kind ?? '' } },
            message.kind === 'refused' || message.kind === 'warning' ? '⚠ ' : '', message.content.text);
    }
    const { content } = message;
    const body = content.type === 'attachment' ? await attachmentBody(messenger, message)
        : h('p', { class: 'body' }, content.type === 'text' ? content.text
            : MessageContent.isKnown(content) ? `(${content.type})` : `unsupported message (${content.type})`);
    const outgoing = message.direction === 'out';
    const sender = outgoing ? 'you' : await messenger.groups.nameOf(message.sender);
    const mark = outgoing ? (marks[message.status] ?? GroupReceipts.mark(message)) : '';
    return h('li', {
        class: outgoing ? 'out' : 'in',
        dataset: { id: message.id, sender, status: message.status ?? '', receipts: mark },
    },
    outgoing ? null : h('span', { class: 'sender' }, sender),
    body,
    (message.warnings ?? []).map((warning) => h('small', { class: 'warning-line' }, `⚠ ${warning}`)),
    h('small', { class: 'meta' },
        h('time', { datetime: new Date(message.sentAt).toISOString() }, formatTime(message.sentAt)),
        message.expiresAt ? h('span', { title: 'disappears', 'aria-label': 'disappearing' }, ' ⏱') : null,
        outgoing ? h('span', { class: `mark ${message.status}`, title: receiptTitle(message) }, ` ${mark}`) : null));
}

/** The mark's longer form, for a pointer or a screen reader: "delivered to 2 of 3 members, read by 1". */
function receiptTitle(message) {
    const counts = GroupReceipts.counts(message);
    if (counts === null || message.status === 'sending' || message.status === 'failed') return null;
    return `delivered to ${counts.delivered} of ${counts.members} members, read by ${counts.read}`;
}
