/** The conversation list (with the groups section) and the directory (search, cursor paging); both open a chat. */

import { describe } from './account-views.js';
import { contactAvatar } from './attachment-views.js';
import { avatarPicture, field, h, replace } from './dom.js';
import { groupsSection } from './group-views.js';

/** @param {{root: HTMLElement, messenger: import('../messenger/messenger.js').Messenger}} app */
export async function conversationsView(app) {
    const { messenger } = app;
    const draw = () => drawConversations(app);
    messenger.addEventListener('conversation', draw);
    messenger.addEventListener('contacts', draw);
    messenger.addEventListener('group', draw);
    await draw();
    return () => {
        messenger.removeEventListener('conversation', draw);
        messenger.removeEventListener('contacts', draw);
        messenger.removeEventListener('group', draw);
    };
}

async function drawConversations(app) {
    const { messenger } = app;
    const contacts = await messenger.conversations();
    const avatars = await Promise.all(contacts.map((contact) => contactAvatar(messenger, contact)));
    const groups = await groupsSection(messenger);
    const list = h('ul', { class: 'list', 'aria-label': 'Conversations' },
        contacts.length === 0
            ? h('li', { class: 'empty' }, 'No conversations yet. Find someone in the directory.') : null,
        contacts.map((contact, index) => h('li', {},
            h('a', { href: `#chat/${contact.token}`, class: 'row', dataset: { nickname: contact.nickname } },
                avatars[index],
                h('span', { class: 'name' }, contact.nickname),
                contact.changedKeys ? h('span', { class: 'badge warning' }, 'key changed') : null))));
    replace(app.root, h('section', { class: 'card', 'aria-labelledby': 'conversations-title' },
        h('h2', { id: 'conversations-title' }, 'Conversations'), list,
        h('p', {}, h('a', { href: '#directory', class: 'button' }, 'Directory'))), groups);
}

export async function directoryView(app) {
    const { messenger } = app;
    const entries = [];
    let next = null;
    const search = h('input', { type: 'search', name: 'search', autocomplete: 'off' });
    const list = h('ul', { class: 'list', 'aria-label': 'Directory entries', 'aria-live': 'polite' });
    const more = h('button', { type: 'button', onclick: () => load() }, 'Load more');
    const error = h('p', { class: 'error', role: 'alert' });
    const render = () => {
        const query = search.value.trim().toLowerCase();
        const mine = messenger.account.token;
        const shown = entries.filter((entry) => entry.nickname.includes(query) && entry.token !== mine);
        const empty = query ? `Nobody loaded matches "${query}".` : 'Nobody else yet.';
        replace(list, shown.length === 0 ? h('li', { class: 'empty' }, empty) : null,
            shown.map((entry) => h('li', {},
                h('a', { href: `#chat/${entry.token}`, class: 'row', dataset: { nickname: entry.nickname } },
                    avatarPicture(null, entry.nickname), h('span', { class: 'name' }, entry.nickname)))));
        more.hidden = next === null;
    };
    const addPage = (page) => {
        entries.push(...page.entries);
        next = page.next ?? null;
        render();
    };
    const load = async () => {
        try {
            addPage(await messenger.relay.directoryPage({ limit: 50, after: next }));
        } catch (failure) {
            error.textContent = describe(failure);
        }
    };
    const lookup = async (event) => {
        event.preventDefault();
        const name = search.value.trim();
        if (!name) return;
        try {
            const contact = await messenger.contacts.contactByNickname(name);
            location.hash = `#chat/${contact.token}`;
        } catch (failure) {
            error.textContent = failure.code === 'unknown_nickname' || failure.status === 404
                ? `Nobody is registered as "${name}".` : describe(failure);
        }
    };
    search.addEventListener('input', render);
    replace(app.root, h('section', { class: 'card', 'aria-labelledby': 'directory-title' },
        h('h2', { id: 'directory-title' }, 'Directory'),
        h('form', { role: 'search', onsubmit: lookup },
            field('Search by nickname', search, 'Filters the list; Enter opens that exact nickname.')),
        error, list, more));
    await load();
    search.focus();
}
