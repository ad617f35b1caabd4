/**
 * A group's info: its avatar, name and disappearing timer; the members and admins, each marked when the key the
 * directory publishes is not the one the group recorded, or not the one pinned here; and what this account may
 * change: as an admin, add, remove, make admin, rename or set the avatar, and record a member's key it accepted (a
 * `rekey`); as any member, record its own new key, and leave. Nodes from text only.
 */

import { GroupBook } from '../messenger/group-book.js';
import { describe } from './account-views.js';
import { field, h, replace } from './dom.js';
import { avatarChoice, groupAvatar, memberPicker } from './group-views.js';

export async function groupInfoView(app, id) {
    const { messenger } = app;
    const { groups } = messenger;
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
        const entry = await groups.entry(id);
        if (!entry) {
            replace(section, h('p', { class: 'error', role: 'alert' }, 'No such group here.'));
            return;
        }
        const { current, isMember } = entry.chain;
        const me = messenger.token;
        const admin = isMember && current.isAdmin(me);
        const keys = new Map((await groups.keys.memberKeys(id)).map((key) => [key.token, key]));
        const rows = await Promise.all(current.members.map(async (member) => {
            const self = member.token.equals(me);
            const name = self ? messenger.account.nickname : await groups.nameOf(member.token);
            const token = String(member.token);
            const key = keys.get(token);
            return h('li', { class: 'member', dataset: { member: name, keyRecorded: String(key?.recorded ?? '') } },
                h('span', { class: 'name' }, self ? `${name} (you)` : name),
                member.isAdmin ? h('span', { class: 'badge' }, 'admin') : null,
                keyBadges(key, self),
                key?.canRecord ? h('button', { type: 'button', name: 'rekey', class: 'link',
                    onclick: act(() => groups.rekey(id, self ? [] : [token])) },
                self ? 'Record my new key' : `Record ${name}'s new key`) : null,
                !self && key && (key.pinned === 'changed' || key.recorded === false)
                    ? h('a', { href: `#chat/${token}`, class: 'link' }, `Compare the safety number with ${name}`)
                    : null,
                admin && !self ? h('button', { type: 'button', name: 'remove', class: 'link',
                    onclick: act(() => groups.remove(id, [token])) }, `Remove ${name}`) : null,
                admin && !member.isAdmin ? h('button', { type: 'button', name: 'promote', class: 'link',
                    onclick: act(() => groups.promote(id, [token])) }, `Make ${name} admin`) : null);
        }));
        const timer = GroupBook.timerOf(entry);
        const parts = [
            h('div', { class: 'group-head' }, groupAvatar(current, 56),
                h('h2', { id: 'group-info-title' }, current.name)),
            h('p', {}, h('a', { href: `#group/${id}` }, 'Back to the group')),
            isMember ? null : h('p', { class: 'key-change' }, 'You are no longer a member of this group.'),
            h('p', { class: 'hint', dataset: { testid: 'group-timer' } },
                `Disappearing messages: ${GroupBook.describeTimer(timer).replace(/^to /, '')}`),
            h('h3', {}, `${current.members.length} members`),
            h('ul', { class: 'list members-list', 'aria-label': 'Members' }, rows),
            error,
        ];
        if (admin) {
            const picker = await memberPicker(messenger, 'Add members', current.tokens);
            parts.push(h('form', { onsubmit: act(() => groups.add(id, picker.selected())) },
                picker.element, picker.count > 0 ? h('button', { type: 'submit', name: 'add' }, 'Add') : null));
            const newName = h('input', { name: 'group-name', maxlength: '100', required: true, value: current.name });
            const avatar = avatarChoice(current.avatar);
            parts.push(h('form', {
                onsubmit: act(() => groups.rename(id, newName.value.trim(), avatar.value || null)),
            }, field('Group name', newName), field('Group avatar', avatar),
            h('button', { type: 'submit', name: 'rename' }, 'Rename or set avatar')));
        }
        if (isMember && current.members.length > 1) {
            parts.push(h('p', {}, h('button', {
                type: 'button', name: 'leave', class: 'danger',
                onclick: act(async () => {
                    if (confirm(`Leave ${current.name}? Its members will no longer send you anything.`)) {
                        await groups.leave(id);
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
    messenger.addEventListener('contacts', draw);
    replace(app.root, section);
    await draw();
    return () => {
        messenger.removeEventListener('group', onGroup);
        messenger.removeEventListener('contacts', draw);
    };
}

/** What a member's key looks like here: not the recorded one, changed since pinning, or unknown to the directory. */
function keyBadges(key, self) {
    if (!key) return null;
    const badges = [];
    if (key.recorded === false) {
        badges.push(h('span', { class: 'badge warning', title: self ? 'your key is not the one the group recorded'
            : 'the directory publishes another key than the one the group recorded' }, 'key not recorded'));
    }
    if (key.pinned === 'changed') {
        badges.push(h('span', { class: 'badge warning', title: 'not the key you accepted: compare the safety number' },
            'key changed'));
    }
    if (key.pinned === 'unknown') badges.push(h('span', { class: 'badge' }, 'not in the directory'));
    return badges;
}
