/** Register and restore: the two ways into an account, both deriving the secret's keys in a worker. */

import { AvatarImage } from '../content/avatar-image.js';
import { toBase64 } from '../crypto/bytes.js';
import { registerAccount, restoreAccount } from '../messenger/account.js';
import { avatarPicture, avatarPresets, field, h, replace } from './dom.js';

function progressBar() {
    const bar = h('progress', { max: '1', value: '0', 'aria-label': 'Deriving keys from the secret', hidden: true });
    return {
        node: bar,
        start() {
            bar.hidden = false;
            bar.value = 0;
        },
        update(fraction) {
            bar.value = fraction;
        },
        stop() {
            bar.hidden = true;
        },
    };
}

function errorLine() {
    return h('p', { class: 'error', role: 'alert' });
}

/** @param {{root: HTMLElement, onAccount: (messenger: Messenger) => void, show: (view: string) => void}} app */
export function registerView(app) {
    const nickname = h('input', {
        name: 'nickname', autocomplete: 'username', required: true, minlength: '3', maxlength: '32',
        pattern: '[A-Za-z0-9][A-Za-z0-9_.\\-]{2,31}',
    });
    const secret = h('input', {
        name: 'secret', type: 'password', autocomplete: 'new-password', required: true, minlength: '8',
    });
    const again = h('input', { name: 'secret-again', type: 'password', autocomplete: 'new-password', required: true });
    let chosen = avatarPresets[0];
    const presets = h('div', { class: 'presets', role: 'radiogroup', 'aria-label': 'Avatar' },
        avatarPresets.map((preset, index) => {
            const input = h('input', {
                type: 'radio', name: 'avatar', value: preset, id: `avatar-${preset}`, checked: index === 0,
                onchange: () => {
                    chosen = preset;
                    clearPicture();
                },
            });
            return h('label', { for: `avatar-${preset}`, class: 'preset', title: preset },
                input, avatarPicture(preset), h('span', {}, preset));
        }));
    let picture = null;
    const pictureInput = h('input', { type: 'file', name: 'avatar-image', accept: 'image/png,image/jpeg' });
    const pictureError = h('p', { class: 'picture-error', role: 'alert' });
    const preview = h('span', { class: 'avatar-preview' });
    const clearPicture = () => {
        picture = null;
        pictureInput.value = '';
        const old = preview.querySelector('img')?.src;
        if (old) URL.revokeObjectURL(old);
        replace(preview);
    };
    pictureInput.addEventListener('change', async () => {
        const file = pictureInput.files?.[0];
        pictureError.textContent = '';
        if (!file) return;
        const bytes = new Uint8Array(await file.arrayBuffer());
        const problem = AvatarImage.problem(bytes);
        if (problem !== null) {
            clearPicture();
            pictureError.textContent = problem;
            return;
        }
        clearPicture();
        picture = bytes;
        const url = URL.createObjectURL(new Blob([bytes], { type: AvatarImage.mediaType(bytes) }));
        replace(preview, h('img', { src: url, alt: 'your chosen avatar', class: 'avatar avatar-image', width: '40',
            height: '40' }));
    });
    const progress = progressBar();
    const error = errorLine();
    const submit = h('button', { type: 'submit' }, 'Create account');
    const form = h('form', {
        class: 'card', 'aria-labelledby': 'register-title',
        onsubmit: async (event) => {
            event.preventDefault();
            error.textContent = '';
            if (secret.value !== again.value) {
                error.textContent = 'The two secrets differ: type the same secret twice.';
                again.focus();
                return;
            }
            submit.disabled = true;
            progress.start();
            try {
                const messenger = await registerAccount({
                    nickname: nickname.value,
                    secret: secret.value,
                    avatar: picture ? { image: toBase64(picture) } : { preset: chosen },
                    onProgress: progress.update,
                });
                app.onAccount(messenger);
            } catch (failure) {
                error.textContent = describe(failure);
            } finally {
                progress.stop();
                submit.disabled = false;
            }
        },
    },
    h('h2', { id: 'register-title' }, 'Create an account'),
    h('p', {}, 'Your keys are made in this browser. The relay keeps only your public keys and your private keys '
        + 'sealed under your secret.'),
    field('Nickname', nickname, '3–32 letters, digits, _ . -'),
    field('Secret', secret, 'At least 8 characters. Nobody can recover it for you.'),
    field('Secret again', again),
    h('fieldset', {}, h('legend', {}, 'Avatar'), presets,
        h('div', { class: 'picture' },
            field('Or your own picture', pictureInput, 'PNG or JPEG, at most 64 KiB. Only your contacts get it.'),
            preview),
        pictureError),
    progress.node, error, submit,
    h('p', {}, 'Already registered? ', h('a', { href: '#restore' }, 'Restore your account')));
    replace(app.root, form);
    nickname.focus();
}

export function restoreView(app) {
    const nickname = h('input', { name: 'nickname', autocomplete: 'username', required: true });
    const secret = h('input', { name: 'secret', type: 'password', autocomplete: 'current-password', required: true });
    const progress = progressBar();
    const error = errorLine();
    const submit = h('button', { type: 'submit' }, 'Restore');
    const form = h('form', {
        class: 'card', 'aria-labelledby': 'restore-title',
        onsubmit: async (event) => {
            event.preventDefault();
            error.textContent = '';
            submit.disabled = true;
            progress.start();
            try {
                const input = { nickname: nickname.value, secret: secret.value, onProgress: progress.update };
                app.onAccount(await restoreAccount(input));
            } catch (failure) {
                error.textContent = describe(failure);
            } finally {
                progress.stop();
                submit.disabled = false;
            }
        },
    },
    h('h2', { id: 'restore-title' }, 'Restore an account'),
    h('p', {}, 'Your sealed keys come from the relay and are opened here with your secret.'),
    field('Nickname', nickname), field('Secret', secret), progress.node, error, submit,
    h('p', {}, 'New here? ', h('a', { href: '#register' }, 'Create an account')));
    replace(app.root, form);
    nickname.focus();
}

export function describe(error) {
    const known = {
        nickname_taken: 'That nickname is taken.',
        wrong_secret: 'Wrong secret for that nickname.',
        unknown_nickname: 'Nobody is registered under that nickname.',
        invalid_nickname: error.message,
        relay_unreachable: 'The relay does not answer. Try again in a moment.',
        rate_limited: 'Too many attempts: wait a little and try again.',
    };
    return known[error.code] ?? `${error.message}${error.code ? ` (${error.code})` : ''}`;
}
