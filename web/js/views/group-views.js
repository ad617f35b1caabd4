/**
 * Groups: the groups section of the conversation list, "new group" (a name and members picked from contacts and the
 * directory), a group's chat (sender names, membership changes and refusals as system lines, warnings beside
 * messages) and its info (members and admins; add, remove, promote, rename for admins; leave). Nodes from text only.
 */

import { describe } from './account-views.js';
import { field, formatTime, h, replace } from './dom.js';

const marks = { sending: '…', sent: '✓', failed: 'not sent' };

/** The groups section of the conversation list: one row per group, and "New group". */
export async function groupsSection(messenger) {
    const entries = await messenger.groups.list();
    return h('section', { class: 'card groups', 'aria-labelledby': 'groups-title' },
        h('h2', { id: 'groups-title' }, 'Groups'),
        h('ul', { class: 'list', 'aria-label': 'Groups' },
            entries.length === 0 ? h('li', { class: 'empty' }, 'No groups yet.') : null,
            entries.map(({ id, chain }) => h('li', {},
                h('a', { href: `#group/${id}`, class: 'row', dataset: { group: chain.current.name } },
                    h('span', { class: 'group-icon', 'aria-hidden': 'true' }, '#'),
                    h('span', { class: 'name' }, chain.current.name),
                    h('small', { class: 'hint' }, `${chain.current.members.length} members`),
                    chain.isMember ? null : h('span', { class: 'badge warning' }, 'not a member'))))),
        h('p', {}, h('a', { href: '#new-group', class: 'button', dataset: { testid: 'new-group' } }, 'New group')));
}

/**
 * Checkboxes for people to add: pinned contacts and the directory's first 100 entries, without `exclude` (tokens).
 * @returns {Promise<{element: HTMLElement, selected: () => string[], count: number}>}
 */
async function memberPicker(messenger, legend, exclude = []) {
    const skip = new Set([messenger.account.token, ...exclude.map(String)]);
    const people = new Map();
    for (const contact of await messenger.store.contacts()) people.set(contact.token, contact.nickname);
    try {
        const page = await messenger.relay.directoryPage({ limit: 100 });
        for (const entry of page.entries) if (!people.has(entry.token)) people.set(entry.token, entry.nickname);
    } catch {
        // The contacts alone, then.
    }
    const choices = [...people].filter(([token]) => !skip.has(token)).sort((a, b) => a[1].localeCompare(b[1]));
    const boxes = choices.map(([token, nickname]) => {
        const box = h('input', { type: 'checkbox', name: 'member', value: token, id: `member-${token}` });
        return h('label', { class: 'choice', for: box.id, dataset: { nickname } }, box, nickname);
    });
    const element = h('fieldset', { class: 'members' }, h('legend', {}, legend),
        boxes.length === 0 ? h('p', { class: 'hint' }, 'Nobody to add.') : boxes);
    const selected = () => [...element.querySelectorAll('input[name=member]:checked')].map((box) => box.value);
    return { element, selected, count: boxes.length };
}

/** "New group": a name and members; the group opens once the relay handed its creation back. */
export async function newGroupView(app) {
    const { messenger } = app;
    const name = h('input', { name: 'group-name', maxlength: '100', required: true, autocomplete: 'off' });
    const picker = await memberPicker(messenger, 'Members');
    const error = h('p', { class: 'error', role: 'alert' });
    const create = h('button', { type: 'submit' }, 'Create group');
    const form = h('form', {
        onsubmit: async (event) => {
            event.preventDefault();
            const members = picker.selected();
            if (members.length === 0) {
                error.textContent = 'Pick at least one member.';
                return;
            }
            create.disabled = true;
            error.textContent = '';
            try {
                const id = await messenger.groups.create(name.value.trim(), members);
                location.hash = `#group/${id}`;
            } catch (failure) {
                error.textContent = describe(failure);
            } finally {
                create.disabled = false;
            }
        },
    }, field('Group name', name, 'Every member sees it; at most 100 bytes (fewer characters with accents or emoji).'),
    picker.element, error, create);
    replace(app.root, h('section', { class: 'card', 'aria-labelledby': 'new-group-title' },
        h('h2', { id: 'new-group-title' }, 'New group'), form));
    name.focus();
    return () => {};
}

/** A group's conversation. */
export async function groupChatView(app, id) {
    const { messenger } = app;
    const entry = await messenger.groups.entry(id);
    if (!entry) {
        const missing = h('p', { class: 'error', role: 'alert' }, 'No such group here.');
        replace(app.root, h('section', { class: 'card' }, missing));
        return () => {};
    }
    const title = h('h2', { id: 'group-title' });
    const list = h('ol', { class: 'messages', 'aria-label': 'Group messages', 'aria-live': 'polite' });
    const error = h('p', { class: 'error', role: 'alert' });
    const gone = h('p', { class: 'key-change', role: 'status', hidden: true, dataset: { testid: 'not-member' } },
        'You are no longer a member of this group: nothing more reaches you, and you cannot send.');
    const text = h('textarea', { name: 'message', rows: '2', required: true });
    const send = h('button', { type: 'submit' }, 'Send');
    const refresh = async () => {
        const { chain } = await messenger.groups.entry(id);
        title.textContent = chain.current.name;
        const messages = await messenger.messages(id);
        const items = await Promise.all(messages.map((message) => groupItem(messenger, message)));
        const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
        replace(list, items);
        if (atBottom) list.scrollTop = list.scrollHeight;
        gone.hidden = chain.isMember;
        text.disabled = !chain.isMember;
        send.disabled = !chain.isMember;
    };
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
            text.value = '';
            try {
                await messenger.groups.sendText(id, body);
            } catch (failure) {
                error.textContent = describe(failure);
            }
            text.focus();
        },
    }, field('Message', text), send);
    const onConversation = (event) => {
        if (event.detail === id) refresh();
    };
    messenger.addEventListener('conversation', onConversation);
    messenger.addEventListener('group', onConversation);
    replace(app.root, h('section', { class: 'chat', 'aria-labelledby': 'group-title' },
        h('header', { class: 'chat-head' },
            h('a', { href: '#home', class: 'back', 'aria-label': 'Back to conversations' }, '←'),
            title,
            h('a', { href: `#group-info/${id}`, class: 'group-info-link' }, 'Group info')),
        gone, list, error, form));
    await refresh();
    if (!text.disabled) text.focus();
    return () => {
        messenger.removeEventListener('conversation', onConversation);
        messenger.removeEventListener('group', onConversation);
    };
}

async function groupItem(messenger, message) {
    if (message.direction === 'note') {
        return h('li', { class: `note ${message.kind ?? ''}`.trim(), dataset: { kind: message.kind ?? '' } },
            message.kind === 'refused' || message.kind === 'warning' ? '⚠ ' : '', message.content.text);
    }
    const { content } = message;
    // Only text is built for groups (attachments and the rest are not yet): anything else is unsupported here.
    const body = content.type === 'text' ? content.text : `unsupported message (${content.type})`;
    const outgoing = message.direction === 'out';
    const sender = outgoing ? 'you' : await messenger.groups.nameOf(message.sender);
    return h('li', {
        class: outgoing ? 'out' : 'in', dataset: { id: message.id, sender, status: message.status ?? '' },
    },
    outgoing ? null : h('span', { class: 'sender' }, sender),
    h('p', { class: 'body' }, body),
    (message.warnings ?? []).map((warning) => h('small', { class: 'warning-line' }, `⚠ ${warning}`)),
    h('small', { class: 'meta' },
        h('time', { datetime: new Date(message.sentAt).toISOString() }, formatTime(message.sentAt)),
        outgoing ? h('span', { class: `mark ${message.status}` }, ` ${marks[message.status] ?? ''}`) : null));
}

/** A group's members and admins; what an admin (or any member, for leaving) can change. */
export async function groupInfoView(app, id) {
    const { messenger } = app;
    const section = h('section', { class: 'card', 'aria-labelledby': 'group-info-title' });
    const error = h('p', { class: 'error', role: 'alert' });
    const act = (work) => async (event) => {
        event?.preventDefault();
        error.textContent = '';
        for (const button of section.querySelectorAll('button')) button.disabled = true;
        try {
            await work();
        } catch (failure) {
            error.textContent = describe(failure);
        }
        await draw();
    };
    const draw = async () => {
        const entry = await messenger.groups.entry(id);
        if (!entry) {
            replace(section, h('p', { class: 'error', role: 'alert' }, 'No such group here.'));
            return;
        }
        const { current, isMember } = entry.chain;
        const me = messenger.token;
        const admin = isMember && current.isAdmin(me);
        const rows = await Promise.all(current.members.map(async (member) => {
            const self = member.token.equals(me);
            const name = self ? messenger.account.nickname : await messenger.groups.nameOf(member.token);
            const token = String(member.token);
            return h('li', { class: 'member', dataset: { member: name } },
                h('span', { class: 'name' }, self ? `${name} (you)` : name),
                member.isAdmin ? h('span', { class: 'badge' }, 'admin') : null,
                admin && !self ? h('button', { type: 'button', name: 'remove', class: 'link',
                    onclick: act(() => messenger.groups.remove(id, [token])) }, `Remove ${name}`) : null,
                admin && !member.isAdmin ? h('button', { type: 'button', name: 'promote', class: 'link',
                    onclick: act(() => messenger.groups.promote(id, [token])) }, `Make ${name} admin`) : null);
        }));
        const parts = [
            h('h2', { id: 'group-info-title' }, current.name),
            h('p', {}, h('a', { href: `#group/${id}` }, 'Back to the group')),
            isMember ? null : h('p', { class: 'key-change' }, 'You are no longer a member of this group.'),
            h('h3', {}, `${current.members.length} members`),
            h('ul', { class: 'list members-list', 'aria-label': 'Members' }, rows),
            error,
        ];
        if (admin) {
            const picker = await memberPicker(messenger, 'Add members', current.tokens);
            parts.push(h('form', { onsubmit: act(() => messenger.groups.add(id, picker.selected())) },
                picker.element, picker.count > 0 ? h('button', { type: 'submit', name: 'add' }, 'Add') : null));
            const newName = h('input', { name: 'group-name', maxlength: '100', required: true, value: current.name });
            parts.push(h('form', { onsubmit: act(() => messenger.groups.rename(id, newName.value.trim())) },
                field('Group name', newName), h('button', { type: 'submit', name: 'rename' }, 'Rename')));
        }
        if (isMember && current.members.length > 1) {
            parts.push(h('p', {}, h('button', {
                type: 'button', name: 'leave', class: 'danger',
                onclick: act(async () => {
                    if (confirm(`Leave ${current.name}? Its members will no longer send you anything.`)) {
                        await messenger.groups.leave(id);
                    }
                }),
            }, 'Leave group')));
        }
        replace(section, parts);
    };
    const onGroup = (event) => {
        if (event.detail === id) draw();
    };
    messenger.addEventListener('group', onGroup);
    replace(app.root, section);
    await draw();
    return () => messenger.removeEventListener('group', onGroup);
}
