/**
 * Groups: the groups section of the conversation list (each group with its avatar), "new group" (a name, a preset
 * avatar, and members picked from contacts and the directory), and what the group's chat and info share. The chat is
 * group-chat-view.js, the info group-info-view.js. Nodes from text only.
 */

import { describe } from './account-views.js';
import { avatarPicture, avatarPresets, field, h, replace } from './dom.js';

/** The groups section of the conversation list: one row per group, and "New group". */
export async function groupsSection(messenger) {
    const entries = await messenger.groups.list();
    return h('section', { class: 'card groups', 'aria-labelledby': 'groups-title' },
        h('h2', { id: 'groups-title' }, 'Groups'),
        h('ul', { class: 'list', 'aria-label': 'Groups' },
            entries.length === 0 ? h('li', { class: 'empty' }, 'No groups yet.') : null,
            entries.map(({ id, chain }) => h('li', {},
                h('a', { href: `#group/${id}`, class: 'row', dataset: { group: chain.current.name } },
                    groupAvatar(chain.current),
                    h('span', { class: 'name' }, chain.current.name),
                    h('small', { class: 'hint' }, `${chain.current.members.length} members`),
                    chain.isMember ? null : h('span', { class: 'badge warning' }, 'not a member'))))),
        h('p', {}, h('a', { href: '#new-group', class: 'button', dataset: { testid: 'new-group' } }, 'New group')));
}

/**
 * Checkboxes for people to add: pinned contacts and the directory's first 100 entries, without `exclude` (tokens).
 * @returns {Promise<{element: HTMLElement, selected: () => string[], count: number}>}
 */
export async function memberPicker(messenger, legend, exclude = []) {
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

/** A group's avatar: its preset drawn as a disc, or its name's first letters when it has none. */
export function groupAvatar(state, size = 40) {
    const picture = avatarPicture(state.avatar, state.name, size);
    picture.setAttribute('aria-label', state.avatar ? `group avatar: ${state.avatar}` : `${state.name} (no avatar)`);
    return picture;
}

/** A select of the twelve presets and "None" (the only group avatars there are: SECURITY.md, state kind 1). */
export function avatarChoice(current = null) {
    const select = h('select', { name: 'group-avatar' }, h('option', { value: '' }, 'None'),
        avatarPresets.map((preset) => h('option', { value: preset }, preset)));
    select.value = current ?? '';
    return select;
}

/** "New group": a name, an avatar and members; the group opens once the relay handed its creation back. */
export async function newGroupView(app) {
    const { messenger } = app;
    const name = h('input', { name: 'group-name', maxlength: '100', required: true, autocomplete: 'off' });
    const avatar = avatarChoice();
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
                const id = await messenger.groups.create(name.value.trim(), members, { avatar: avatar.value || null });
                location.hash = `#group/${id}`;
            } catch (failure) {
                error.textContent = describe(failure);
            } finally {
                create.disabled = false;
            }
        },
    }, field('Group name', name, 'Every member sees it; at most 100 bytes (fewer characters with accents or emoji).'),
    field('Group avatar', avatar), picker.element, error, create);
    replace(app.root, h('section', { class: 'card', 'aria-labelledby': 'new-group-title' },
        h('h2', { id: 'new-group-title' }, 'New group'), form));
    name.focus();
    return () => {};
}

